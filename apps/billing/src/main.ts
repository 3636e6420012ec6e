import { loadServiceConfig, runMain, startService } from '@app/platform';
import { MIGRATIONS } from './migrations';
import { loadBillingConfig } from './billing.config';
import { BillingModule } from './billing.module';
import { BILLING_WARM_UP } from './warm-up';

runMain(() => {
  const config = loadServiceConfig('billing');
  return startService({ config, module: BillingModule.register(config, loadBillingConfig()), migrations: MIGRATIONS, microservice: true, warmUp: BILLING_WARM_UP });
});
