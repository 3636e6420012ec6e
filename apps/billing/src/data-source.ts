import { cliDataSource } from '@app/platform/data-source';
import { MIGRATIONS } from './migrations';

/** billing's database for the TypeORM CLI (see cliDataSource). */
export default cliDataSource('billing', MIGRATIONS, __dirname);
