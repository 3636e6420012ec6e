import { loadServiceConfig, runMain, startService } from '@app/platform';
import { MIGRATIONS } from './migrations';
import { loadSearchConfig } from './search.config';
import { SearchModule } from './search.module';
import { SEARCH_WARM_UP } from './warm-up';

runMain(() => {
  const config = loadServiceConfig('search');
  return startService({ config, module: SearchModule.register(config, loadSearchConfig()), migrations: MIGRATIONS, microservice: true, warmUp: SEARCH_WARM_UP });
});
