import { loadServiceConfig, runMain, startService } from '@app/platform';
import { MIGRATIONS } from './migrations';
import { loadSequencesConfig } from './sequences.config';
import { SequencesModule } from './sequences.module';

runMain(() => {
  const config = loadServiceConfig('sequences');
  return startService({ config, module: SequencesModule.register(config, loadSequencesConfig()), migrations: MIGRATIONS, microservice: true });
});
