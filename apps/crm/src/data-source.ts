import { cliDataSource } from '@app/platform/data-source';
import { CRM_MIGRATIONS } from './migrations';

/** crm's database for the TypeORM CLI (see cliDataSource). */
export default cliDataSource('crm', CRM_MIGRATIONS, __dirname);
