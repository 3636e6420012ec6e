import 'reflect-metadata';
import { loadServiceConfig, runMain, startService } from '@app/platform';
import { loadCrmConfig } from './crm.config';
import { CrmModule } from './crm.module';
import { CRM_MIGRATIONS } from './migrations';
import { CRM_WARM_UP } from './warm-up';

runMain(() => {
  const config = loadServiceConfig('crm');
  return startService({ config, module: CrmModule.register(config, loadCrmConfig()), migrations: CRM_MIGRATIONS, warmUp: CRM_WARM_UP });
});
