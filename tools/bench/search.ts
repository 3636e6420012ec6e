import { Client } from 'pg';
import { percentile, startBenchMesh } from './bench-mesh';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dns2 = require('dns2');

const ENTITIES = Number(process.env.BENCH_SEARCH_ENTITIES || 1_000_000);
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

async function load(url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<{ samples: number[]; errors: number }> {
  const samples: number[] = [];
  let errors = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (Date.now() < until) {
      const t = process.hrtime.bigint();
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) errors++;
      samples.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }));
  return { samples, errors };
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
  const db = new Client({ connectionString: mesh.databaseUrl('search') });
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    process.stdout.write(`${line}\n`);
  };
  try {
    const seeded = mesh.admin('search:seed', '--count', String(ENTITIES));
    say(`seed: ${ENTITIES} entities in ${seeded.seconds.toFixed(1)} s = ${seeded.per_second} entities/s`);
    await db.connect();
    await db.query('ANALYZE entities');

    const ws = mesh.admin('workspace:create', '--name', 'bench-search', '--plan-credits', '10000000');
    const key = mesh.admin('key:create', '--workspace', ws.id, '--mode', 'live').key as string;
    const headers = { authorization: `Bearer ${key}` };
    await new Promise((r) => setTimeout(r, 1500)); // billing opens the account from workspace.created
    const query = 'lens=investors&q=fintech&filters[stage]=seed&filters[type]=vc';
    say(`| GET /search?${query} | connections | requests | errors | p50 ms | p95 ms | p99 ms |`);
    say('| --- | --- | --- | --- | --- | --- | --- |');
    for (const page of [1, 40]) {
      const url = `${mesh.apiBase}/search?${query}&page=${page}`;
      await load(url, headers, CONNECTIONS, 2); // warm-up
      const { samples, errors } = await load(url, headers, CONNECTIONS, SECONDS);
      say(`| page ${page} | ${CONNECTIONS} | ${samples.length} | ${errors} | ${percentile(samples, 50).toFixed(1)} | ${percentile(samples, 95).toFixed(1)} | ${percentile(samples, 99).toFixed(1)} |`);
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
