import { cliDataSource } from '@app/platform/data-source';
import { MIGRATIONS } from './migrations';

/** webhooks's database for the TypeORM CLI (see cliDataSource). */
export default cliDataSource('webhooks', MIGRATIONS, __dirname);
