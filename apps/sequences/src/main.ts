import { loadServiceConfig, runMain, startService } from '@app/platform';
import { MIGRATIONS } from './migrations';
import { SequencesModule } from './sequences.module';

runMain(() => {
  const config = loadServiceConfig('sequences');
  return startService({ config, module: SequencesModule.register(config), migrations: MIGRATIONS, microservice: true });
});
