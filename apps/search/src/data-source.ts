import { cliDataSource } from '@app/platform/data-source';
import { MIGRATIONS } from './migrations';

/** search's database for the TypeORM CLI (see cliDataSource). */
export default cliDataSource('search', MIGRATIONS, __dirname);
