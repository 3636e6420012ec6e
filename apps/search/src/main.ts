import { loadServiceConfig, runMain, startService } from '@app/platform';
import { MIGRATIONS } from './migrations';
import { loadSearchConfig } from './search.config';
import { SearchModule } from './search.module';

runMain(() => {
  const config = loadServiceConfig('search');
  return startService({ config, module: SearchModule.register(config, loadSearchConfig()), migrations: MIGRATIONS, microservice: true });
});
