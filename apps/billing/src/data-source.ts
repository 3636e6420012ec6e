import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { databaseUrlFor } from '@app/platform/config';
import { serviceDataSourceOptions } from '@app/platform/data-source';
import { MIGRATIONS } from './migrations';

/**
 * billing's database for the TypeORM CLI (`npx typeorm migration:show -d dist/apps/billing/src/data-source.js`,
 * `migration:generate` against the entities). The service builds its own through TypeOrmModule;
 * deploys migrate with `npm run migrate -- billing <run|show|revert>`, which holds the migration lock.
 */
export default new DataSource(
  serviceDataSourceOptions({
    databaseUrl: databaseUrlFor('billing'),
    migrations: MIGRATIONS,
    entities: [join(__dirname, '**/*.entity.js')],
  }),
);
