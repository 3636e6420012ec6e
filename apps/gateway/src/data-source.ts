import { cliDataSource } from '@app/platform/data-source';
import { GATEWAY_MIGRATIONS } from './migrations';

/** gateway's database for the TypeORM CLI (see cliDataSource). */
export default cliDataSource('gateway', GATEWAY_MIGRATIONS, __dirname);
