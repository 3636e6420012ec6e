import 'reflect-metadata';
import { loadServiceConfig, runMain, startService } from '@app/platform';
import { loadCrmConfig } from './crm.config';
import { CrmModule } from './crm.module';
import { CRM_MIGRATIONS } from './migrations';

runMain(() => {
  const config = loadServiceConfig('crm');
  return startService({ config, module: CrmModule.register(config, loadCrmConfig()), migrations: CRM_MIGRATIONS });
});
