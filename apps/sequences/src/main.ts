import { loadServiceConfig, runMain, startService } from '@app/platform';
import { MIGRATIONS } from './migrations';
import { loadSequencesConfig } from './sequences.config';
import { SequencesModule } from './sequences.module';
import { SEQUENCES_WARM_UP } from './warm-up';

runMain(() => {
  const config = loadServiceConfig('sequences');
  return startService({ config, module: SequencesModule.register(config, loadSequencesConfig()), migrations: MIGRATIONS, microservice: true, warmUp: SEQUENCES_WARM_UP });
});
