import { loadServiceConfig, runMain, startService } from '@app/platform';
import { runMigrations } from '@app/platform/migrations';
import { applyIndexLayout } from './migrations/index-layout';
import { MIGRATIONS } from './migrations';
import { loadSearchConfig } from './search.config';
import { SearchModule } from './search.module';
import { SEARCH_WARM_UP } from './warm-up';

runMain(async () => {
  const config = loadServiceConfig('search');
  const search = loadSearchConfig();
  // the migrations, then the ranking indexes (as `npm run migrate -- search` does)
  await runMigrations(config.databaseUrl, MIGRATIONS);
  await applyIndexLayout(config.databaseUrl);
  return startService({ config, module: SearchModule.register(config, search), migrations: MIGRATIONS, microservice: true, warmUp: SEARCH_WARM_UP });
});
