import { Client } from 'pg';
import { httpReady, RunningApp, stopApp, waitFor } from '../../../tools/mesh/processes';
import { meshHookTimeoutMs, TestMesh } from '../../harness';
import { startBehindDatabaseProxy } from '../../support/proxied-database';
import { TcpProxy } from '../../../tools/mesh/tcp-proxy';
import { sleep } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

/**
 * Readiness means ready for NATS too (issue 15 item 5). Two crm replicas, one reaching its
 * database through a proxy the test cuts (live connections destroyed, new ones refused): the
 * cut replica leaves its queue group, so no request fails while the other is healthy, and joins
 * again once it can query.
 */
describe('a replica that loses its database leaves its queue groups (e2e)', () => {
  let mesh: TestMesh;
  let key: string;
  let proxy: TcpProxy;
  let cutOff: RunningApp | undefined;
  let cutLog: string[] = [];

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'crm'], { RATE_LIMIT_PER_MINUTE: '100000' });
    ({ key } = await mesh.workspace());
    let log: string[];
    ({ proxy, app: cutOff, log } = await startBehindDatabaseProxy(mesh, 'crm'));
    cutLog = log;
  }, meshHookTimeoutMs(3)); // two apps and a crm replica behind the proxy
  afterAll(async () => {
    if (cutOff) await stopApp(cutOff, 3000);
    await proxy?.close();
    await mesh?.close();
  });

  /** Requests the replica behind the proxy answered, from its metrics. */
  async function servedByCutOff(): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${cutOff!.port}/metrics`)).text();
    const match = /rpc_handler_duration_seconds_count\{[^}]*subject="crm\.leads\.get"[^}]*outcome="ok"[^}]*\} (\d+)/.exec(text);
    return match ? Number(match[1]) : 0;
  }

  /** Waves of 20 concurrent reads for `ms`; returns every status that was not 200. */
  async function load(leadId: string, ms: number): Promise<string[]> {
    const failures: string[] = [];
    const until = Date.now() + ms;
    while (Date.now() < until) {
      const wave = await Promise.all(Array.from({ length: 20 }, () => mesh.request('GET', `/leads/${leadId}`, { key })));
      for (const res of wave) if (res.status !== 200 || res.body.id !== leadId) failures.push(`${res.status} ${res.text}`);
    }
    return failures;
  }

  it('a pool saturated by slow requests is busy, not lost: readiness stays ready while every pooled connection waits', async () => {
    const crm = mesh.apps.get('crm')!;
    const ready = async () => (await fetch(`http://127.0.0.1:${crm.port}/health/ready`)).status;
    expect(await ready()).toBe(200);
    // every create waits on the lock, each holding one of crm's pooled connections (the harness's
    // PG_POOL_MAX, 4), and more wait for a connection: the pool is saturated, the database answers
    const locker = new Client({ connectionString: mesh.databaseUrl('crm') });
    await locker.connect();
    let creates: Promise<unknown>[] = [];
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE leads IN ACCESS EXCLUSIVE MODE');
      creates = Array.from({ length: 8 }, (_, i) => mesh.request('POST', '/leads', { key, body: { full_name: `Held ${i}` } }));
      await waitFor('crm pool saturated', async () => {
        const waiting = await mesh.query('crm', "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
        return waiting[0].n >= 4;
      }, allowance(10_000), 50);
      // past readiness's former 1.5 s wait for a pooled connection, and past a probe interval or two
      const statuses: number[] = [];
      for (const until = Date.now() + 3000; Date.now() < until; await sleep(250)) statuses.push(await ready());
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    const answered = (await Promise.all(creates)) as { status: number }[];
    expect(answered.map((res) => res.status)).toEqual(Array(8).fill(201));
  });

  it('no request fails while the other replica is healthy; the replica joins again when its database answers', async () => {
    const created = await mesh.request('POST', '/leads', { key, body: { full_name: 'Cut Off' } });
    expect(created.status).toBe(201);
    const leadId = created.body.id;

    expect(await load(leadId, 1000)).toEqual([]);
    const before = await servedByCutOff();
    expect(before).toBeGreaterThan(0); // both replicas serve

    proxy.cut();
    await waitFor('the cut replica to report its database down', async () => (await fetch(`http://127.0.0.1:${cutOff!.port}/health/ready`)).status === 503, 5000, 20).catch((err: Error) => {
      throw new Error(`${err.message} (exit code ${cutOff!.child.exitCode}); its log:\n${cutLog.slice(-20).join('\n')}`);
    });
    // a few probe intervals: long enough for the replica to have noticed and left
    await sleep(1000);
    expect(await load(leadId, 3000)).toEqual([]);
    expect(await servedByCutOff()).toBe(before); // nothing reached it while it could not query
    expect(cutLog.filter((line) => line.includes('leaving the queue groups'))).toHaveLength(1);

    proxy.restore();
    await waitFor('the replica to be ready again', () => httpReady(cutOff!.port), allowance(10_000));
    // it joins its queue group again: requests reach it (and none fails on the way)
    const failures: string[] = [];
    await waitFor('the replica to serve again', async () => {
      failures.push(...(await load(leadId, 200)));
      return (await servedByCutOff()) > before;
    }, allowance(10_000), 0);
    expect(failures).toEqual([]);
  });
});
