import { loadServiceConfig, runMain, startService } from '@app/platform';
import { MIGRATIONS } from './migrations';
import { loadWebhooksConfig } from './webhooks-config';
import { WebhooksModule } from './webhooks.module';
import { WEBHOOKS_WARM_UP } from './warm-up';

runMain(() => {
  const config = loadServiceConfig('webhooks');
  return startService({ config, module: WebhooksModule.register(config, loadWebhooksConfig()), migrations: MIGRATIONS, microservice: true, warmUp: WEBHOOKS_WARM_UP });
});
