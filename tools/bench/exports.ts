import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { csvSelectList } from '../../apps/crm/src/exports/exports.repository';
import { startBenchMesh } from './bench-mesh';

const LEADS = Number(process.env.BENCH_EXPORT_LEADS || 1_000_000);
const GOAL_SECONDS = 60;
const GOAL_RSS_MB = 300;

/** VmHWM (peak resident set since start) and VmRSS of a process, in MB. */
function memoryOf(pid: number): { hwm: number; rss: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { hwm: kb('VmHWM') / 1024, rss: kb('VmRSS') / 1024 };
}

/**
 * `npm run bench -- exports`: 1,000,000 leads of one workspace inserted with generate_series
 * into crm's database, then POST /exports (CSV, then JSON) timed from the POST until GET
 * /exports/{id} reports `completed`, the file downloaded through its signed link, crm's peak
 * RSS, and PostgreSQL's own `COPY (SELECT <the same columns>) TO STDOUT WITH CSV` of the same
 * rows into a file, measured in the same run.
 */
export async function runExportsBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-exports-'));
  const mesh = await startBenchMesh(['crm', 'gateway'], { EXPORT_STORAGE_DIR: join(dir, 'store'), EXPORT_POLL_MS: '100' });
  const db = new Client({ connectionString: mesh.databaseUrl('crm') });
  try {
    const crmPid = mesh.apps.get('crm')?.child.pid as number;
    const workspace = mesh.admin('workspace:create', '--name', 'bench-exports');
    const key = mesh.admin('key:create', '--workspace', workspace.id, '--mode', 'live').key as string;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    await db.connect();
    let started = Date.now();
    // Values that exercise the encoder: commas and quotes to quote, formula-leading titles, half revealed.
    await db.query(
      `INSERT INTO leads (id, workspace_id, lens, first_name, last_name, full_name, title, email, phone, website, company_name,
                          country, revealed, lawful_basis, tags, stage_name, created_at, updated_at)
       SELECT 'lead_x' || lpad(n::text, 9, '0'), $1, (ARRAY['leads','investors','researchers','grants'])[1 + n % 4],
              'First' || n, 'Last' || n, 'First' || n || ' Last' || n,
              CASE WHEN n % 11 = 0 THEN '=Head of "Growth"' WHEN n % 7 = 0 THEN 'VP, Sales' ELSE 'Engineer' END,
              'user' || n || '@domain' || (n % 1000) || '.example', '+1415' || lpad((n % 10000000)::text, 7, '0'),
              'https://company' || (n % 5000) || '.example', 'Company ' || (n % 5000) || CASE WHEN n % 3 = 0 THEN ', Inc.' ELSE '' END,
              'US', n % 2 = 0, 'legitimate_interest',
              CASE WHEN n % 10 = 0 THEN ARRAY['vip', 'q4'] WHEN n % 3 = 0 THEN ARRAY['cold'] ELSE '{}'::text[] END,
              'Stage ' || (n % 5), now() - make_interval(secs => $2 - n), now() - make_interval(secs => $2 - n)
         FROM generate_series(1, $2::int) AS n`,
      [workspace.id, LEADS],
    );
    await db.query('VACUUM ANALYZE leads');
    process.stdout.write(`seeded ${LEADS} leads in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

    const exportOnce = async (format: 'csv' | 'json') => {
      const before = memoryOf(crmPid);
      let peakRss = before.rss;
      const sampler = setInterval(() => {
        peakRss = Math.max(peakRss, memoryOf(crmPid).rss);
      }, 50);
      const t0 = process.hrtime.bigint();
      const created = await fetch(`${mesh.apiBase}/exports`, { method: 'POST', headers, body: JSON.stringify({ format }) });
      if (created.status !== 202) throw new Error(`POST /exports answered ${created.status}: ${await created.text()}`);
      const { id } = (await created.json()) as { id: string };
      let done: { status: string; row_count: number; download_url: string; created_at: string; completed_at: string };
      for (;;) {
        const res = await fetch(`${mesh.apiBase}/exports/${id}`, { headers });
        done = (await res.json()) as typeof done;
        if (done.status === 'completed' || done.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      clearInterval(sampler);
      if (done.status !== 'completed') throw new Error(`export ${id} ${done.status}`);
      const after = memoryOf(crmPid);
      // the link names the default public URL; fetch it from this run's gateway
      const link = new URL(done.download_url);
      const t1 = process.hrtime.bigint();
      const file = await fetch(`${mesh.apiBase}${link.pathname.replace(/^\/api\/v1/, '')}${link.search}`);
      let bytes = 0;
      for await (const chunk of Readable.fromWeb(file.body as never)) bytes += (chunk as Buffer).length;
      const downloadSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
      if (file.status !== 200) throw new Error(`download answered ${file.status}`);
      return {
        format, seconds, rows: done.row_count, bytes, downloadSeconds,
        serverSeconds: (Date.parse(done.completed_at) - Date.parse(done.created_at)) / 1000,
        rssBefore: before.rss, peakRss: Math.max(peakRss, after.rss), hwm: after.hwm,
      };
    };

    const csv = await exportOnce('csv');
    const json = await exportOnce('json');

    // PostgreSQL alone: COPY of the same columns and rows into a file, no Node encoding, no mesh.
    const copyFile = join(dir, 'copy.csv');
    started = Date.now();
    const literal = `'${String(workspace.id).replace(/'/g, "''")}'`;
    const copy = db.query(copyTo(`COPY (SELECT ${csvSelectList()} FROM leads WHERE workspace_id = ${literal} ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)`));
    await pipeline(copy, createWriteStream(copyFile));
    const copySeconds = (Date.now() - started) / 1000;
    const copyBytes = statSync(copyFile).size;

    const mb = (n: number) => n.toFixed(0);
    const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
    const out = [
      `exports benchmark: ${LEADS} leads, node ${process.version}, ${new Date().toISOString()}`,
      line(['run', 'rows', 'seconds (POST -> completed seen)', 'server seconds (created_at -> completed_at)', 'rows/s', 'file MB', 'download s', 'crm RSS before MB', 'crm peak RSS during MB', 'crm VmHWM MB', 'ratio to COPY']),
      line(['---', '---', '---', '---', '---', '---', '---', '---', '---', '---', '---']),
      ...[csv, json].map((r) => line([
        `export ${r.format}`, r.rows, r.seconds.toFixed(2), r.serverSeconds.toFixed(2), (r.rows / r.seconds).toFixed(0),
        (r.bytes / 1e6).toFixed(1), r.downloadSeconds.toFixed(2), mb(r.rssBefore), mb(r.peakRss), mb(r.hwm), (r.seconds / copySeconds).toFixed(2),
      ])),
      line(['COPY … TO STDOUT (CSV)', LEADS, copySeconds.toFixed(2), '', (LEADS / copySeconds).toFixed(0), (copyBytes / 1e6).toFixed(1), '', '', '', '', '1.00']),
    ];
    process.stdout.write(`${out.join('\n')}\n`);
    process.stdout.write(
      `goal: CSV export of ${LEADS} leads < ${GOAL_SECONDS} s -> ${csv.seconds.toFixed(1)} s ${csv.seconds < GOAL_SECONDS ? 'MET' : 'NOT MET'}; ` +
        `crm peak RSS < ${GOAL_RSS_MB} MB -> VmHWM ${mb(csv.hwm)} MB ${csv.hwm < GOAL_RSS_MB ? 'MET' : 'NOT MET'}\n`,
    );
  } finally {
    await db.end().catch(() => undefined);
    await mesh.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
