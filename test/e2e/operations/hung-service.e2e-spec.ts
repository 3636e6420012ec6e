import { randomToken } from '@app/platform/ids';
import { ApiResponse, RequestOptions, TestMesh } from '../../harness';
import { expectApiError, listLeads, sleep } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

/**
 * A service that is up but does not answer (paused with SIGSTOP: overloaded, stuck on a lock):
 * the gateway's request deadline turns it into 500 internal_error instead of a hang, and, as the
 * spec promises for 500, a POST is safe to retry with the same Idempotency-Key: the request the
 * gateway gave up on may still complete once the service resumes, and the retry must not run
 * it a second time. The deadline is shortened for this mesh (RPC_TIMEOUT_MS).
 */
const RPC_TIMEOUT_MS = 1500;

describe('gateway with a hung service (e2e)', () => {
  let mesh: TestMesh;
  let key: string;

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'crm'], { RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) });
    ({ key } = await mesh.workspace());
  });
  afterAll(async () => {
    resume();
    await mesh?.close();
  });

  function pause(): void {
    process.kill(mesh.apps.get('crm')!.child.pid!, 'SIGSTOP');
  }
  function resume(): void {
    const pid = mesh?.apps.get('crm')?.child.pid;
    if (pid) process.kill(pid, 'SIGCONT');
  }

  async function timed(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse & { ms: number }> {
    const started = performance.now();
    const res = await mesh.request(method, path, { key, ...options });
    return { ...res, ms: performance.now() - started };
  }

  it('answers 500 internal_error at the request deadline instead of hanging', async () => {
    pause();
    try {
      const res = await timed('GET', '/leads');
      expectApiError(res, 500, 'internal_error');
      expect(res.ms).toBeGreaterThanOrEqual(RPC_TIMEOUT_MS - 100);
      expect(res.ms).toBeLessThan(RPC_TIMEOUT_MS + allowance(1500));
    } finally {
      resume();
    }
    expect((await timed('GET', '/leads')).status).toBe(200);
  });

  it('does not create a second lead when a POST the gateway gave up on is retried with the same Idempotency-Key', async () => {
    const idempotencyKey = `hung-${randomToken(12)}`;
    const name = `Slow ${randomToken(8)}`;
    const body = { full_name: name, title: 'Patient' };
    const named = async () => (await listLeads(mesh, key, `q=${encodeURIComponent(name)}`)).filter((lead) => lead.full_name === name);

    pause();
    let timedOut: ApiResponse;
    try {
      timedOut = await timed('POST', '/leads', { body, headers: { 'idempotency-key': idempotencyKey } });
    } finally {
      resume();
    }
    expectApiError(timedOut, 500, 'internal_error');

    // The resumed service works off the request it had already received.
    for (let i = 0; i < 50 && (await named()).length === 0; i++) await sleep(100);
    const afterResume = await named();
    expect(afterResume).toHaveLength(1);

    const retry = await timed('POST', '/leads', { body, headers: { 'idempotency-key': idempotencyKey } });
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(afterResume[0].id);
    expect(retry.body.full_name).toBe(name);
    expect((await named()).map((lead) => lead.id)).toEqual([afterResume[0].id]);

    const events = await mesh.query('crm', `SELECT id FROM outbox WHERE type = 'lead.created' AND envelope->'data'->'object'->>'full_name' = $1`, [name]);
    expect(events).toHaveLength(1);

    // From now on the gateway replays that outcome.
    const replay = await timed('POST', '/leads', { body, headers: { 'idempotency-key': idempotencyKey } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(retry.text);
  });

  it('still refuses the same Idempotency-Key with a different body after such a timeout', async () => {
    const idempotencyKey = `hung-${randomToken(12)}`;
    const name = `Slow ${randomToken(8)}`;
    pause();
    try {
      expectApiError(await timed('POST', '/leads', { body: { full_name: name }, headers: { 'idempotency-key': idempotencyKey } }), 500, 'internal_error');
    } finally {
      resume();
    }
    for (let i = 0; i < 50 && (await listLeads(mesh, key, `q=${encodeURIComponent(name)}`)).length === 0; i++) await sleep(100);

    const other = `Other ${randomToken(8)}`;
    const res = await timed('POST', '/leads', { body: { full_name: other }, headers: { 'idempotency-key': idempotencyKey } });
    expectApiError(res, 409, 'conflict');
    expect(await listLeads(mesh, key, `q=${encodeURIComponent(other)}`)).toEqual([]);
  });
});
