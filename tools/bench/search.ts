import { appendFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { cpuByPid, cpuSeconds as cpuOf, cpuSince, percentile, postgresBackends, startBenchMesh } from './bench-mesh';
import { growthTable, recordGrowth } from './search-growth';

/** CPU seconds (user + system) one process has used so far. */
const cpuSeconds = (pid: number | undefined): number => (pid === undefined ? NaN : cpuOf([pid]));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dns2 = require('dns2');

const ENTITIES = Number(process.env.BENCH_SEARCH_ENTITIES ?? 1_000_000);
/**
 * `SEARCH_DATABASE_URL` (the search service's own setting) points the bench's search service at an
 * index that is already there, e.g. one seeded by an earlier run; with `BENCH_SEARCH_ENTITIES=0`
 * the loads run against it without seeding again.
 */
const SEARCH_DB = process.env.SEARCH_DATABASE_URL;
const CONNECTIONS = Number(process.env.BENCH_SEARCH_CONNECTIONS || 16);
const SECONDS = Number(process.env.BENCH_SEARCH_SECONDS || 10);

/** Every name has an A record 127.0.0.1 and no MX: reveals verify without the network (probing off). */
async function localDns(): Promise<{ server: string; close: () => Promise<void> }> {
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request: any, send: (r: any) => void) => {
      const response = Packet.createResponseFromRequest(request);
      const [q] = request.questions;
      if (q.type === Packet.TYPE.A) response.answers.push({ name: q.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 60, address: '127.0.0.1' });
      send(response);
    },
  });
  const port = 20000 + Math.floor(Math.random() * 20000);
  await server.listen({ udp: { port, address: '127.0.0.1' } });
  return { server: `127.0.0.1:${port}`, close: () => server.close() };
}

/** The seed's sectors, stages and investor types (apps/search/src/entities/seed.ts): 432 distinct investor searches. */
const SECTORS = ['software', 'fintech', 'healthcare', 'biotech', 'climate', 'retail', 'logistics', 'education', 'energy', 'security', 'robotics', 'media'];
const STAGES = ['pre_seed', 'seed', 'series_a', 'series_b', 'series_c', 'growth'];
const TYPES = ['vc', 'angel', 'family_office', 'corporate', 'accelerator', 'private_equity'];

/**
 * autocannon (as the leads bench) on CONNECTIONS kept-alive connections: `options` says how long or
 * how many. Every response's latency is kept, for the p95 autocannon's summary does not give. A
 * raw client rather than node:http or fetch: the load generator shares the machine's two cores
 * with the mesh, and node:http (fetch more so) spends more CPU per request than a service of the
 * mesh does. BENCH_SEARCH_TRACE=<file> appends each request's start (ms) and latency (ms),
 * a line each, to look at how latencies cluster in time.
 */
async function drive(options: autocannon.Options): Promise<{ samples: number[]; errors: number }> {
  const samples: number[] = [];
  let non200 = 0;
  const trace = process.env.BENCH_SEARCH_TRACE;
  const lines: string[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon(options, (err, done) => (err ? reject(err) : resolve(done)));
    run.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      samples.push(ms);
      if (status !== 200) non200++;
      if (trace) lines.push(`${(performance.timeOrigin + performance.now() - ms).toFixed(3)} ${ms.toFixed(3)}`);
    });
  });
  if (trace) appendFileSync(trace, `${lines.join('\n')}\n`);
  return { samples, errors: non200 + result.errors + result.timeouts };
}

/** One URL over and over for `seconds`. */
function load(url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<{ samples: number[]; errors: number }> {
  return drive({ url, headers, connections, duration: seconds });
}

/** Each URL requested once: for queries nobody has asked yet (no cache can answer them). */
function loadOnce(urls: string[], headers: Record<string, string>, connections: number): Promise<{ samples: number[]; errors: number }> {
  let at = 0;
  const next = () => {
    const url = new URL(urls[at++]);
    return `${url.pathname}${url.search}`;
  };
  return drive({ url: urls[0], headers, connections, amount: urls.length, requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: next() }) }] });
}

/**
 * `npm run bench -- search`: seeds ENTITIES entities through `search:seed` (rate), GET /search
 * through the whole mesh with free text and two filters at CONNECTIONS connections for page 1
 * and page 40 (p50/p95), then 200 concurrent reveals against a balance of 100 credits.
 */
export async function runSearchBench(): Promise<void> {
  const dns = await localDns();
  const mesh = await startBenchMesh(['billing', 'crm', 'search', 'gateway'], {
    EMAIL_VERIFY_DNS_SERVERS: dns.server, EMAIL_VERIFY_SMTP_PROBE: 'off', BILLING_PLAN_CREDITS: 'agency=100000000',
  });
  const db = new Client({ connectionString: SEARCH_DB || mesh.databaseUrl('search') });
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    process.stdout.write(`${line}\n`);
  };
  try {
    const searchPid = mesh.apps.get('search')?.child.pid;
    const searchCpu = cpuSeconds(searchPid);
    const searchDb = new URL(SEARCH_DB || mesh.databaseUrl('search')).pathname.slice(1);
    const pgBefore = cpuByPid(await postgresBackends(searchDb));
    const seeded = ENTITIES > 0 ? mesh.admin('search:seed', '--count', String(ENTITIES)) : undefined;
    if (seeded) say(`seed: ${ENTITIES} entities in ${seeded.seconds.toFixed(1)} s = ${seeded.per_second} entities/s`);
    else say(`seed: none (BENCH_SEARCH_ENTITIES=0), index of ${(await mesh.admin('search:seed', '--count', '1', '--if-empty', 'true')).total} entities`);
    if (seeded && process.env.BENCH_SEARCH_CPU === '1') say(`  cpu s: search ${(cpuSeconds(searchPid) - searchCpu).toFixed(1)} PostgreSQL backends of search ${cpuSince(pgBefore, cpuByPid(await postgresBackends(searchDb))).toFixed(1)}`);
    await db.connect();
    // what autovacuum does within a minute or two of a bulk load (visibility map, statistics),
    // done now so the search figures do not depend on when it happens to run
    const vacuumStarted = Date.now();
    await db.query('VACUUM (ANALYZE) entities');
    say(`  VACUUM (ANALYZE) after the seed: ${((Date.now() - vacuumStarted) / 1000).toFixed(1)} s (not in the seed rate)`);
    // and the checkpoint that follows a load of GBs: its writes of dirty buffers otherwise share the
    // two cores with whichever search load it happens to fall in
    const checkpointStarted = Date.now();
    await db.query('CHECKPOINT');
    say(`  CHECKPOINT after the seed: ${((Date.now() - checkpointStarted) / 1000).toFixed(1)} s (not in the seed rate)`);
    const [sizes] = (await db.query<{ table_mb: string; indexes_mb: string; n: string }>(
      // with entities_rank (migration 0013), the narrow copy the band indexes are on
      `SELECT (pg_table_size('entities') + coalesce(pg_table_size(to_regclass('entities_rank')), 0)) / 1048576 AS table_mb,
              (pg_indexes_size('entities') + coalesce(pg_indexes_size(to_regclass('entities_rank')), 0)) / 1048576 AS indexes_mb,
              (SELECT n FROM entities_count) AS n`)).rows;
    say(`  entities: ${Number(sizes.n).toLocaleString('en-US')}, table ${sizes.table_mb} MB, indexes ${sizes.indexes_mb} MB on disk`);
    const growth = { repeated: [] as number[], first: [] as number[] };

    const ws = mesh.admin('workspace:create', '--name', 'bench-search', '--plan-credits', '10000000');
    const key = mesh.admin('key:create', '--workspace', ws.id, '--mode', 'live').key as string;
    const headers = { authorization: `Bearer ${key}` };
    await new Promise((r) => setTimeout(r, 1500)); // billing opens the account from workspace.created
    /** Starts counting CPU; the returned function tells where it went: ms of CPU per request by process. */
    const cpuMeter = async () => {
      const pids = [...[...mesh.apps.values()].map((app) => [app.name, app.child.pid] as const), ['nats-server', mesh.natsPid] as const];
      const before = pids.map(([, pid]) => cpuSeconds(pid));
      const benchBefore = process.cpuUsage();
      const backends = async () => [...await postgresBackends(mesh.prefix), ...(SEARCH_DB ? await postgresBackends(searchDb) : [])];
      const pgBefore = cpuByPid(await backends());
      return async (requests: number) => {
        const pg = cpuSince(pgBefore, cpuByPid(await backends()));
        const used = pids.map(([name, pid], i) => `${name} ${(((cpuSeconds(pid) - before[i]) * 1000) / requests).toFixed(2)}`);
        const bench = process.cpuUsage(benchBefore);
        return `  cpu ms/request: ${used.join(', ')}, PostgreSQL (every service's backends) ${((pg * 1000) / requests).toFixed(2)}, load generator ${((bench.user + bench.system) / 1000 / requests).toFixed(2)}`;
      };
    };
    const query = 'lens=investors&q=fintech&filters[stage]=seed&filters[type]=vc';
    say(`| GET /search?${query} | connections | requests | errors | p50 ms | p95 ms | p99 ms |`);
    say('| --- | --- | --- | --- | --- | --- | --- |');
    for (const page of [1, 40]) {
      const url = `${mesh.apiBase}/search?${query}&page=${page}`;
      await load(url, headers, CONNECTIONS, 2); // warm-up
      const cpu = await cpuMeter();
      const { samples, errors } = await load(url, headers, CONNECTIONS, SECONDS);
      say(`| page ${page} | ${CONNECTIONS} | ${samples.length} | ${errors} | ${percentile(samples, 50).toFixed(1)} | ${percentile(samples, 95).toFixed(1)} | ${percentile(samples, 99).toFixed(1)} |`);
      growth.repeated.push(Number(percentile(samples, 95).toFixed(1)));
      if (process.env.BENCH_SEARCH_CPU === '1') say(await cpu(samples.length));
    }

    // BENCH_SEARCH_SERVED_ONLY=1: the repeated query alone (e.g. to profile it with MESH_NODE_ARGS)
    if (process.env.BENCH_SEARCH_SERVED_ONLY === '1') return;

    // the same shape of search, but every request a query nobody asked before (432 combinations of
    // the corpus's sectors, stages and types, shuffled, half for page 1 and half for page 40): what a
    // first search costs, which no cache answers
    const distinct = SECTORS.flatMap((q) => STAGES.flatMap((stage) => TYPES.map((type) => `lens=investors&q=${q}&filters[stage]=${stage}&filters[type]=${type}`)))
      .filter((q) => q !== query)
      .sort(() => Math.random() - 0.5);
    const half = Math.floor(distinct.length / 2);
    for (const [page, queries] of [[1, distinct.slice(0, half)], [40, distinct.slice(half)]] as const) {
      const cpu = await cpuMeter();
      const { samples, errors } = await loadOnce(queries.map((q) => `${mesh.apiBase}/search?${q}&page=${page}`), headers, CONNECTIONS);
      say(`| page ${page}, ${queries.length} distinct queries, each asked once | ${CONNECTIONS} | ${samples.length} | ${errors} | ${percentile(samples, 50).toFixed(1)} | ${percentile(samples, 95).toFixed(1)} | ${percentile(samples, 99).toFixed(1)} |`);
      growth.first.push(Number(percentile(samples, 95).toFixed(1)));
      if (process.env.BENCH_SEARCH_CPU === '1') say(await cpu(samples.length));
    }
    // BENCH_SEARCH_RECORD=1: the run joins the growth curve (docs/bench/search-growth.json, its table
    // and the plot docs/bench/search-growth.svg, one point per index size, the latest run replacing
    // the one before)
    if (process.env.BENCH_SEARCH_RECORD === '1') {
      const points = recordGrowth(join(process.cwd(), 'docs/bench/search-growth.json'), {
        entities: Number(sizes.n), at: new Date().toISOString().slice(0, 16), node: process.version, load: Number(loadavg()[0].toFixed(1)),
        seed_per_second: seeded ? seeded.per_second : null, table_mb: Number(sizes.table_mb), indexes_mb: Number(sizes.indexes_mb),
        repeated_p95: { page1: growth.repeated[0], page40: growth.repeated[1] }, first_p95: { page1: growth.first[0], page40: growth.first[1] },
      });
      say(`growth curve (docs/bench/search-growth.json, .svg):\n${growthTable(points)}`);
    }

    const poor = mesh.admin('workspace:create', '--name', 'bench-reveals', '--plan-credits', '100');
    const poorKey = mesh.admin('key:create', '--workspace', poor.id, '--mode', 'live').key as string;
    await new Promise((r) => setTimeout(r, 1500));
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM entities WHERE email IS NOT NULL ORDER BY id LIMIT 200`);
    const t = Date.now();
    const results = await Promise.all(rows.map(async (row) => {
      const res = await fetch(`${mesh.apiBase}/reveals`, { method: 'POST', headers: { authorization: `Bearer ${poorKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ entity_id: row.id }) });
      return res.status;
    }));
    const billing = new Client({ connectionString: mesh.databaseUrl('billing') });
    await billing.connect();
    const [acc] = (await billing.query('SELECT plan_balance + pack_balance AS balance, (SELECT coalesce(sum(amount), 0) FROM ledger_entries WHERE workspace_id = $1)::int AS ledger, (SELECT count(*) FROM ledger_entries WHERE workspace_id = $1 AND type = \'consume\')::int AS consumed FROM credit_accounts WHERE workspace_id = $1', [poor.id])).rows;
    await billing.end();
    const count = (s: number) => results.filter((x) => x === s).length;
    say(`reveals: 200 concurrent against 100 credits in ${Date.now() - t} ms: ${count(201)} revealed (201), ${count(402)} refused 402, other ${results.length - count(201) - count(402)}; consumed ${acc.consumed}, balance ${acc.balance}, ledger sum ${acc.ledger}`);
  } finally {
    await db.end().catch(() => undefined);
    await mesh.close();
    await dns.close();
  }
}
