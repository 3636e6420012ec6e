import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, httpReady, RunningApp, spawnApp, stopApp, waitFor } from '../../../tools/mesh/processes';
import { HARNESS, TestMesh } from '../../harness';
import { createExport, csvObjects, download, insertLeads, waitForExport } from '../../support/exports';
import { sleep } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

/**
 * Export jobs against failures and replicas: a crm killed mid-export (SIGKILL, no clean-up)
 * leaves a job whose lease runs out and that another worker retries to completion; two crm
 * processes on one queue never run a job twice.
 */
describe('export jobs: crash recovery and replicas', () => {
  let mesh: TestMesh;
  let storageDir: string;
  let second: RunningApp | undefined;
  const secondLog: string[] = [];

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'exports-recovery-'));
    const gatewayPort = await freePort();
    mesh = await TestMesh.start([], {
      PUBLIC_API_URL: `http://127.0.0.1:${gatewayPort}/api/v1`,
      EXPORT_STORAGE_DIR: storageDir,
      EXPORT_POLL_MS: '200',
      EXPORT_LEASE_MS: '5000', // short, so a killed worker's job is retried soon; long enough for a loaded machine's heartbeats
      EXPORT_BATCH_ROWS: '1000',
      // each batch of 1,000 rows waits 40 ms: a 50,000-row export takes about 2 s, long enough to interrupt
      EXPORT_TEST_BATCH_DELAY_MS: '40',
    });
    await Promise.all([mesh.startApp('gateway', gatewayPort), mesh.startApp('crm')]);
  });
  afterAll(async () => {
    if (second) await stopApp(second, 3000);
    await mesh?.close();
    rmSync(storageDir, { recursive: true, force: true });
  });

  it('two crm replicas share the queue and never run one job twice', async () => {
    second = spawnApp('crm', mesh.env, await freePort(), (line) => secondLog.push(line));
    await waitFor('second crm', () => httpReady((second as RunningApp).port), HARNESS.readyTimeoutMs);

    const { workspace, key } = await mesh.workspace();
    await insertLeads(mesh, workspace.id, 3000, 'Replica');
    const created = await Promise.all(Array.from({ length: 10 }, (_, i) => createExport(mesh, key, { format: i % 2 ? 'json' : 'csv' })));
    const done = await Promise.all(created.map((res) => waitForExport(mesh, key, res.body.id, allowance(60_000))));
    for (const exp of done) expect(exp).toMatchObject({ status: 'completed', row_count: 3000 });

    const ids = done.map((exp) => exp.id);
    const jobs = await mesh.query('crm', 'SELECT id, attempts FROM exports WHERE id = ANY($1)', [ids]);
    expect(jobs.map((j) => j.attempts)).toEqual(Array(10).fill(1));
    const attempts = await mesh.query('crm', 'SELECT export_id, worker_id, outcome FROM export_attempts WHERE export_id = ANY($1)', [ids]);
    expect(attempts).toHaveLength(10);
    expect(new Set(attempts.map((a) => a.export_id)).size).toBe(10);
    for (const a of attempts) expect(a.outcome).toBe('completed');
    // both processes took jobs (each runs at most 2 at once, and every job takes a while)
    const workers = new Set(attempts.map((a) => a.worker_id.split(':')[1]));
    expect(workers).toEqual(new Set([String(mesh.apps.get('crm')?.child.pid), String(second.child.pid)]));

    await stopApp(second, 5000);
    second = undefined;
  });

  it('a crm killed mid-export: the job is retried when its lease expires and completes with the right row_count', async () => {
    const { workspace, key } = await mesh.workspace();
    await insertLeads(mesh, workspace.id, 50_000, 'Crash');
    const res = await createExport(mesh, key, { format: 'csv' });
    const id = res.body.id;

    // wait until the worker is well into the file
    await waitFor('export processing', async () => {
      const [row] = await mesh.query('crm', 'SELECT status FROM exports WHERE id = $1', [id]);
      return row.status === 'processing';
    }, allowance(10_000), 20);
    await sleep(600);
    await mesh.killApp('crm');
    const [killed] = await mesh.query('crm', 'SELECT status, attempts, row_count, locked_until > now() AS leased FROM exports WHERE id = $1', [id]);
    expect(killed).toMatchObject({ status: 'processing', attempts: 1, row_count: null });

    await mesh.startApp('crm');
    const done = await waitForExport(mesh, key, id, allowance(60_000));
    expect(done).toMatchObject({ status: 'completed', row_count: 50_000 });
    const [row] = await mesh.query('crm', 'SELECT attempts FROM exports WHERE id = $1', [id]);
    expect(row.attempts).toBe(2);
    const log = await mesh.query('crm', 'SELECT attempt, outcome, row_count, finished_at FROM export_attempts WHERE export_id = $1 ORDER BY attempt', [id]);
    expect(log).toEqual([
      { attempt: 1, outcome: null, row_count: null, finished_at: null }, // the killed one never finished
      { attempt: 2, outcome: 'completed', row_count: 50_000, finished_at: expect.any(Date) },
    ]);

    const file = await download(done.download_url);
    expect(file.status).toBe(200);
    const rows = csvObjects(file.text);
    expect(rows).toHaveLength(50_000);
    expect(new Set(rows.map((r) => r.id)).size).toBe(50_000);
    // half the bulk leads are revealed: only theirs carry email and phone
    expect(rows.filter((r) => r.email !== '').length).toBe(25_000);
    expect(rows.filter((r) => r.email === '' && r.phone !== '').length).toBe(0);
  });
  it('a crm stopped gracefully mid-export gives the job back (attempt not counted); the next crm runs it once', async () => {
    const { workspace, key } = await mesh.workspace();
    await insertLeads(mesh, workspace.id, 30_000, 'Graceful');
    const res = await createExport(mesh, key, { format: 'json' });
    const id = res.body.id;
    await waitFor('export processing', async () => {
      const [row] = await mesh.query('crm', 'SELECT status FROM exports WHERE id = $1', [id]);
      return row.status === 'processing';
    }, allowance(10_000), 20);
    await sleep(300);
    expect(await mesh.stopApp('crm')).toBe(0);
    const [stopped] = await mesh.query('crm', 'SELECT status, attempts, locked_by FROM exports WHERE id = $1', [id]);
    expect(stopped).toEqual({ status: 'queued', attempts: 0, locked_by: null });
    expect(await mesh.query('crm', 'SELECT 1 FROM export_attempts WHERE export_id = $1', [id])).toHaveLength(0);

    await mesh.startApp('crm');
    const done = await waitForExport(mesh, key, id, allowance(60_000));
    expect(done).toMatchObject({ status: 'completed', row_count: 30_000 });
    const [row] = await mesh.query('crm', 'SELECT attempts FROM exports WHERE id = $1', [id]);
    expect(row.attempts).toBe(1);
    const file = await download(done.download_url);
    expect(file.body).toHaveLength(30_000);
  });
});
