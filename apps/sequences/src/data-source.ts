import { cliDataSource } from '@app/platform/data-source';
import { MIGRATIONS } from './migrations';

/** sequences's database for the TypeORM CLI (see cliDataSource). */
export default cliDataSource('sequences', MIGRATIONS, __dirname);
