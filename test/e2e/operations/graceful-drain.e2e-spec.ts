import { randomToken } from '@app/platform/ids';
import { freePort, httpReady, RunningApp, spawnApp, stopApp, waitFor } from '../../../tools/mesh/processes';
import { ApiResponse, HARNESS, meshHookTimeoutMs, TestMesh } from '../../harness';
import { sleep } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

/**
 * Graceful stop (issue 15 item 4). A crm replica that gets SIGTERM while 200 API requests are in
 * flight leaves its queue group, answers what it holds and exits 0: every request is answered
 * once, 2xx, and each create is made exactly once. A gateway that gets SIGTERM stops accepting
 * connections and still answers the requests it had.
 */
describe('graceful drain (e2e)', () => {
  let mesh: TestMesh;
  let key: string;
  let workspaceId: string;
  let second: RunningApp | undefined;
  const secondLog: string[] = [];

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'crm'], { RATE_LIMIT_PER_MINUTE: '100000' });
    ({ key, workspace: { id: workspaceId } } = await mesh.workspace());
    second = spawnApp('crm', mesh.env, await freePort(), (line) => secondLog.push(line));
    await waitFor('second crm', () => httpReady((second as RunningApp).port), HARNESS.readyTimeoutMs);
  }, meshHookTimeoutMs(3)); // two apps and a second crm replica
  afterAll(async () => {
    if (second) await stopApp(second, 3000);
    await mesh?.close();
  });

  it('a crm replica stopped with 200 requests in flight: every request answered once, 2xx, every create made once', async () => {
    const run = randomToken(6);
    const seeded = await mesh.request('POST', '/leads', { key, body: { full_name: `Seed ${run}` } });
    expect(seeded.status).toBe(201);

    const started = Array.from({ length: 200 }, (_, i): Promise<{ i: number; res: ApiResponse }> => {
      const res =
        i % 2 === 0
          ? mesh.request('POST', '/leads', { key, body: { full_name: `Drain ${run} ${i}` }, headers: { 'Idempotency-Key': `drain-${run}-${i}` } })
          : mesh.request('GET', i % 4 === 1 ? `/leads/${seeded.body.id}` : '/leads?limit=5', { key });
      return res.then((r) => ({ i, res: r }));
    });
    // SIGTERM while the burst is being served (on two shared cores it takes well over a second)
    await sleep(150);
    const stopped = stopApp(mesh.apps.get('crm')!, 30_000);
    const results = await Promise.all(started);
    expect(await stopped).toBe(0);

    const failed = results.filter(({ res }) => res.status >= 300).map(({ i, res }) => `${i}: ${res.status} ${res.text}`);
    expect(failed).toEqual([]);
    for (const { i, res } of results) {
      if (i % 2 === 0) expect(res.body).toMatchObject({ object: 'lead', full_name: `Drain ${run} ${i}` });
      else if (i % 4 === 1) expect(res.body).toMatchObject({ object: 'lead', id: seeded.body.id });
      else expect(res.body).toMatchObject({ object: 'list', data: expect.any(Array) });
    }
    const rows = await mesh.query<{ full_name: string; n: number }>(
      'crm',
      `SELECT full_name, count(*)::int AS n FROM leads WHERE workspace_id = $1 AND full_name LIKE $2 GROUP BY full_name`,
      [workspaceId, `Drain ${run} %`],
    );
    expect(rows).toHaveLength(100);
    expect(rows.filter((r) => r.n !== 1)).toEqual([]);
    // every answered create is the one stored
    const ids = new Set(results.filter(({ i }) => i % 2 === 0).map(({ res }) => res.body.id));
    expect(ids.size).toBe(100);

    // the stopped replica published its outbox before exiting; the other one serves on
    await waitFor('outbox published', async () => {
      const [row] = await mesh.query<{ n: number }>('crm', 'SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL');
      return row.n === 0;
    }, allowance(10_000));
    expect((await mesh.request('GET', `/leads/${seeded.body.id}`, { key })).status).toBe(200);
  });

  it('a gateway stopped with requests in flight answers them, then refuses connections', async () => {
    const crm = second as RunningApp;
    // the requests wait at the gateway for a paused crm, so they are in flight when SIGTERM comes
    process.kill(crm.child.pid!, 'SIGSTOP');
    let inFlight: Promise<ApiResponse>[];
    try {
      inFlight = Array.from({ length: 30 }, () => mesh.request('GET', '/leads?limit=1', { key }));
      await sleep(400);
      const gateway = mesh.apps.get('gateway')!;
      gateway.child.kill('SIGTERM');
      await sleep(400);
      expect(gateway.child.exitCode).toBeNull(); // still answering what it holds
    } finally {
      process.kill(crm.child.pid!, 'SIGCONT');
    }
    const answered = await Promise.all(inFlight);
    expect(answered.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(await mesh.apps.get('gateway')!.exited).toBe(0);
    await expect(fetch(`${mesh.baseUrl}/leads`)).rejects.toThrow();
  });
});
