import { loadServiceConfig, runMain, startService } from '@app/platform';
import { encodeSeedChunk } from './entities/entities.repository';
import { encodeSeedOnThread, isSeedEncoderThread, serveSeedChunks } from './entities/seed-encoder';
import { MIGRATIONS } from './migrations';
import { loadSearchConfig } from './search.config';
import { SearchModule } from './search.module';
import { SEARCH_WARM_UP } from './warm-up';

// this file is also the seed encoder's thread (seed-encoder.ts): there it serves seed chunks, and starts no service
if (isSeedEncoderThread()) serveSeedChunks(encodeSeedChunk);
else {
  encodeSeedOnThread(__filename);
  runMain(() => {
    const config = loadServiceConfig('search');
    return startService({ config, module: SearchModule.register(config, loadSearchConfig()), migrations: MIGRATIONS, microservice: true, warmUp: SEARCH_WARM_UP });
  });
}
