import { join } from 'node:path';
import * as pg from 'pg';
import { DataSource, DataSourceOptions, MigrationInterface } from 'typeorm';
import { ServiceName } from '@app/contracts';

type PostgresConnectionOptions = Extract<DataSourceOptions, { type: 'postgres' }>;
import { databaseUrlFor, PoolSettings, poolSettings } from './config';
import { ignorePoolError, poolConfig } from './db';

/** TypeORM's record of applied migrations, in every service's database. */
export const MIGRATIONS_TABLE = 'typeorm_migrations';

export type MigrationClass = new () => MigrationInterface;

export interface ServiceDataSourceSettings {
  databaseUrl: string;
  /** The service's history, oldest first (`apps/<service>/src/migrations`). */
  migrations?: MigrationClass[];
  /** Entity classes; a Nest service registers its own through TypeOrmModule.forFeature instead. */
  entities?: NonNullable<PostgresConnectionOptions['entities']>;
  /** The service's pool settings (ServiceConfig.pool); a process without a service config reads them here. */
  pool?: PoolSettings;
}

/**
 * The TypeORM options of a service's database: one pool per process, built from the same
 * settings as every pool (TLS, size, startup options); never `synchronize` (the schema is the
 * migrations'), and migrations run by `runMigrations` under the advisory lock, not by TypeORM at
 * initialisation. The pool's connections and errors are those of every pool (db.ts poolConfig,
 * ignorePoolError).
 */
export function serviceDataSourceOptions(settings: ServiceDataSourceSettings): PostgresConnectionOptions {
  return {
    type: 'postgres',
    url: settings.databaseUrl,
    extra: poolConfig(settings.databaseUrl, settings.pool ?? poolSettings()),
    poolErrorHandler: ignorePoolError,
    entities: settings.entities ?? [],
    migrations: settings.migrations ?? [],
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsTransactionMode: 'each',
    migrationsRun: false,
    synchronize: false,
    logging: false,
  };
}

/**
 * A service's database for the TypeORM CLI, which loads `apps/<service>/src/data-source.js`
 * (`npx typeorm migration:show -d dist/apps/crm/src/data-source.js`, `migration:generate` against
 * the entities beside it in `dir`). The service builds its own through TypeOrmModule; deploys
 * migrate with `npm run migrate -- <service> <run|show|revert>`, which holds the migration lock.
 */
export function cliDataSource(service: ServiceName, migrations: MigrationClass[], dir: string): DataSource {
  return new DataSource(serviceDataSourceOptions({ databaseUrl: databaseUrlFor(service), migrations, entities: [join(dir, '**/*.entity.js')] }));
}

/** The node-postgres pool under a TypeORM DataSource: where hand-written SQL takes its clients. */
export function poolOf(dataSource: DataSource): pg.Pool {
  const pool = (dataSource.driver as unknown as { master?: pg.Pool }).master;
  if (!pool) throw new Error('the DataSource is not initialised: it has no pool yet');
  return pool;
}
