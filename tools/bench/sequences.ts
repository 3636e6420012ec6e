import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { SMTPServer } from 'smtp-server';
import { freePort, httpReady, ROOT, spawnApp, stopApp, waitFor } from '../mesh/processes';
import { percentile, startBenchMesh } from './bench-mesh';

const LEADS = Number(process.env.BENCH_SEQ_LEADS || 10_000);
const BATCH = 500;
/** The goals (docs/benchmarks.md): enroll 500 p95 under this many ms; at least this many emails/s; none twice. */
const GOAL_ENROLL_P95_MS = 500;
const GOAL_EMAILS_PER_SECOND = 200;

/** A local SMTP sink counting deliveries and distinct Message-IDs. */
async function startSink(): Promise<{ port: number; deliveries: () => number; distinct: () => number; close: () => Promise<void> }> {
  const ids = new Set<string>();
  let deliveries = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, cb) {
      let head = '';
      stream.on('data', (c: Buffer) => {
        if (head.length < 4096) head += c.toString('utf8');
      });
      stream.on('end', () => {
        deliveries++;
        const id = /^Message-ID:\s*(<[^>]+>)/im.exec(head)?.[1];
        if (id) ids.add(id);
        cb();
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    deliveries: () => deliveries,
    distinct: () => ids.size,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * `npm run bench -- sequences`: (1) POST /sequences/{id}/enrollments with 500 leads each,
 * through the whole mesh (gateway -> sequences -> crm batch fetch), p50/p95; (2) the engine of
 * two sequences replicas sending every enrolled lead's email to a local SMTP sink: emails/s and
 * duplicates counted at the sink. Goals: p95 under 500 ms; at least 200 emails/s, none twice.
 */
export async function runSequencesBench(): Promise<void> {
  const sink = await startSink();
  const mesh = await startBenchMesh(['crm', 'sequences', 'gateway'], {
    SEQUENCES_TICK_MS: '20', SEQUENCES_BATCH: '500', SEQUENCES_SEND_CONCURRENCY: '64',
  });
  const second = spawnApp('sequences', mesh.env, await freePort(), 'ignore');
  const db = new Client({ connectionString: mesh.databaseUrl('crm') });
  process.stdout.write(`goals: enroll ${BATCH} leads p95 < ${GOAL_ENROLL_P95_MS} ms; engine (2 replicas) >= ${GOAL_EMAILS_PER_SECOND} emails/s; no email delivered twice\n`);
  try {
    await waitFor('second sequences replica', () => httpReady(second.port), 30_000);
    const workspace = mesh.admin('workspace:create', '--name', 'bench-sequences');
    const key = mesh.admin('key:create', '--workspace', workspace.id, '--mode', 'live').key as string;
    const smtp = `smtp://127.0.0.1:${sink.port}`;
    // asynchronously: the sink answers the mailbox's SMTP check from this process
    const adminAsync = (...args: string[]) => new Promise<any>((resolve, reject) =>
      execFile(process.execPath, [join(ROOT, 'dist/apps/admin/src/main.js'), ...args], { env: mesh.env }, (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout)))));
    const mailboxes: string[] = [];
    for (const n of [1, 2]) mailboxes.push((await adminAsync('mailbox:create', '--workspace', workspace.id, '--email', `out${n}@sender.bench`, '--smtp-url', smtp, '--daily-cap', '100000')).id);
    const file = join(mkdtempSync(join(tmpdir(), 'bench-seq-')), 'seq.json');
    writeFileSync(file, JSON.stringify({ name: 'Bench', mailbox_ids: mailboxes, steps: [{ type: 'email', subject: 'Hi {{first_name|there}}', body: 'Hello {{first_name|there}}. {{unsubscribe_url}}' }] }));
    const sequence = mesh.admin('sequence:create', '--workspace', workspace.id, '--file', file).id as string;

    await db.connect();
    await db.query(
      `INSERT INTO leads (id, workspace_id, lens, first_name, full_name, email, lawful_basis, tags, created_at, updated_at)
       SELECT 'lead_s' || lpad(n::text, 9, '0'), $1, 'leads', 'First' || n, 'First' || n, 'user' || n || '@rcpt' || (n % 50) || '.bench',
              'legitimate_interest', '{}', now(), now()
         FROM generate_series(1, $2) AS n`,
      [workspace.id, LEADS],
    );
    const ids = (await db.query<{ id: string }>('SELECT id FROM leads WHERE workspace_id = $1 ORDER BY id', [workspace.id])).rows.map((r) => r.id);

    const samples: number[] = [];
    for (let i = 0; i < ids.length; i += BATCH) {
      const started = performance.now();
      const res = await fetch(`${mesh.apiBase}/sequences/${sequence}/enrollments`, {
        method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ lead_ids: ids.slice(i, i + BATCH) }),
      });
      samples.push(performance.now() - started);
      const body = (await res.json()) as { enrolled: unknown[] };
      if (res.status !== 201 || body.enrolled.length !== Math.min(BATCH, ids.length - i)) throw new Error(`enrollment failed: ${res.status}`);
    }
    process.stdout.write(`enroll ${BATCH} leads: ${samples.length} requests, p50 ${percentile(samples, 50).toFixed(0)} ms, p95 ${percentile(samples, 95).toFixed(0)} ms\n`);

    const started = Date.now();
    await adminAsync('sequence:launch', '--sequence', sequence);
    await waitFor('every email at the sink', async () => sink.distinct() >= LEADS, 600_000);
    const seconds = (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 1000));
    process.stdout.write(
      `engine (2 replicas): ${LEADS} emails in ${seconds.toFixed(1)} s = ${(LEADS / seconds).toFixed(0)} emails/s; ` +
      `sink: ${sink.deliveries()} deliveries, ${sink.distinct()} distinct Message-IDs (${sink.deliveries() - sink.distinct()} twice)\n`,
    );
    const met = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
    process.stdout.write(
      `verdict: enroll p95 < ${GOAL_ENROLL_P95_MS} ms -> ${percentile(samples, 95).toFixed(0)} ms ${met(percentile(samples, 95) < GOAL_ENROLL_P95_MS)}; ` +
        `>= ${GOAL_EMAILS_PER_SECOND} emails/s -> ${(LEADS / seconds).toFixed(0)} ${met(LEADS / seconds >= GOAL_EMAILS_PER_SECOND)}; ` +
        `none twice -> ${sink.deliveries() - sink.distinct()} twice ${met(sink.deliveries() === sink.distinct() && sink.distinct() === LEADS)}\n`,
    );
  } finally {
    await db.end().catch(() => undefined);
    await stopApp(second, 3000);
    await mesh.close();
    await sink.close();
  }
}
