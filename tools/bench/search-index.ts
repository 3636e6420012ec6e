import { loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Pool } from 'pg';
import { buildIndex, MemorySearchIndex } from '../../apps/search/src/entities/memory-search-index.store';
import { MemoryIndex } from '../../apps/search/src/entities/memory-index';
import { conditionsFor } from '../../apps/search/src/search/search.service';
import { SearchConfig } from '../../apps/search/src/search.config';
import { SearchReads } from '../../apps/search/src/search/search-reads.store';
import { percentile } from './bench-mesh';

const SECTORS = ['software', 'fintech', 'healthcare', 'biotech', 'climate', 'retail', 'logistics', 'education', 'energy', 'security', 'robotics', 'media'];
const STAGES = ['pre_seed', 'seed', 'series_a', 'series_b', 'series_c', 'growth'];
const TYPES = ['vc', 'angel', 'family_office', 'corporate', 'accelerator', 'private_equity'];

/** A full collection, where the process can ask for one (node --expose-gc, or the flag set at run time). */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;

/**
 * `npm run bench -- search-index`: a search process's in-memory index built from the
 * search database at SEARCH_DATABASE_URL (seeded before, e.g. by `npm run bench -- search` with
 * the same SEARCH_DATABASE_URL): the time and CPU of a build (a search replica's start), the
 * memory it holds (RSS, V8 heap, typed arrays by structure, peak RSS) after a full collection,
 * and the CPU of the query of the search bench's first-time loads (lens, a word, two facets)
 * inside the index, page 1 (26 ids ranked) and page 40 (1,001 ranked, the page's ids made
 * strings, as a search process does), over its 432 distinct queries.
 */
export async function runSearchIndexBench(): Promise<void> {
  const url = process.env.SEARCH_DATABASE_URL;
  if (!url) throw new Error('SEARCH_DATABASE_URL must name a search database with entities (seeded by npm run bench -- search, say)');
  const pool = new Pool({ connectionString: url, max: 2 });
  try {
    process.stdout.write(`run: node ${process.version}, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}, ${new Date().toISOString()}\n`);
    collect();
    const before = process.memoryUsage();
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const client = await pool.connect();
    let index: MemoryIndex;
    try {
      index = await buildIndex(client);
    } finally {
      client.release();
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    collect();
    const after = process.memoryUsage();
    const millions = index.size / 1e6;
    process.stdout.write(`build: ${index.size.toLocaleString('en-US')} entities in ${seconds.toFixed(1)} s, cpu of this process ${((used.user + used.system) / 1e6).toFixed(1)} s, ${index.segmentCount} segment\n`);
    process.stdout.write(`memory held by the index (after a full collection, less before the build): rss ${mb(after.rss - before.rss)}, heap ${mb(after.heapUsed - before.heapUsed)}, `
      + `array buffers ${mb(after.arrayBuffers - before.arrayBuffers)} (typed arrays ${mb(index.bytes)}); per million entities: rss ${mb((after.rss - before.rss) / millions)}, `
      + `heap ${mb((after.heapUsed - before.heapUsed) / millions)}\n`);
    const parts = index.breakdown();
    process.stdout.write(`typed arrays by structure, bytes per entity: ${Object.entries(parts).map(([name, bytes]) => `${name} ${(bytes / index.size).toFixed(1)}`).join(', ')}; `
      + `peak rss of the process ${mb(process.resourceUsage().maxRSS * 1024)} (rss before the build ${mb(before.rss)})\n`);

    // the query inside the index, as a search process runs it (queryOf, then top)
    const config = {} as SearchConfig;
    const memory = new MemorySearchIndex(pool, config, new SearchReads(pool, config, undefined as never));
    memory.serve(index);
    const queries = await Promise.all(SECTORS.flatMap((q) => STAGES.flatMap((stage) => TYPES.map(async (type) =>
      memory.queryOf('investors', q, conditionsFor({ stage: [stage], type: [type] }))))));
    // a page's ids from its offset (EntitiesRepository.search): page 1 ids 0-25, page 40 ids 975-1000
    for (const [page, need, offset] of [[1, 26, 0], [40, 1001, 975]] as const) {
      const samples: number[] = [];
      let hits = 0;
      for (const query of queries) {
        const t = process.hrtime.bigint();
        hits += memory.top(query, need, offset).ids.length;
        samples.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      process.stdout.write(`query in the index, page ${page} (the ids ranked ${offset}-${need - 1}), ${queries.length} distinct queries: p50 ${percentile(samples, 50).toFixed(3)} ms, `
        + `p95 ${percentile(samples, 95).toFixed(3)} ms, max ${Math.max(...samples).toFixed(3)} ms, ${(hits / queries.length).toFixed(0)} ids a query\n`);
    }
  } finally {
    await pool.end();
  }
}
