import { Pool } from 'pg';
import { loadServiceConfig } from '@app/platform/config';
import { runMigrations } from '@app/platform/migrations/migrator';
import { EntitiesRepository } from '../../apps/search/src/entities/entities.repository';
import { MemorySearchIndex } from '../../apps/search/src/entities/memory-search-index.store';
import { MIGRATIONS } from '../../apps/search/src/migrations';
import { SearchConfig } from '../../apps/search/src/search.config';
import { SearchReads } from '../../apps/search/src/search/search-reads.store';
import { TestMesh } from '../harness';

/**
 * search's database for its integration specs: the database of an empty mesh (a prefix of its
 * own), with search's migrations applied. Close the mesh after (it drops the database).
 */
export async function migratedSearchDatabase(): Promise<{ mesh: TestMesh; url: string }> {
  const mesh = await TestMesh.start([]);
  const { databaseUrl } = loadServiceConfig('search', mesh.env);
  await runMigrations(databaseUrl, MIGRATIONS);
  return { mesh, url: databaseUrl };
}

/**
 * Search processes over one database, as the service builds them: each an in-memory index
 * (started: built from the table) and the repository over it. `stop()` stops every index started.
 */
export function searchProcesses(pool: () => Pool, config: SearchConfig): {
  start(options?: Partial<SearchConfig>): Promise<{ index: MemorySearchIndex; repository: EntitiesRepository }>;
  stop(): void;
} {
  const started: MemorySearchIndex[] = [];
  return {
    async start(options = {}) {
      const settings = { ...config, ...options };
      const reads = new SearchReads(pool(), settings, undefined as never);
      const index = new MemorySearchIndex(pool(), settings, reads);
      await index.onModuleInit();
      started.push(index);
      return { index, repository: new EntitiesRepository(pool(), reads, index) };
    },
    stop() {
      for (const index of started) index.onApplicationShutdown();
    },
  };
}
