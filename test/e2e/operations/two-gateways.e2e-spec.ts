import { randomToken } from '@app/platform/ids';
import { freePort, httpReady, RunningApp, spawnApp, stopApp, waitFor } from '../../../tools/mesh/processes';
import { ApiResponse, HARNESS, meshHookTimeoutMs, RequestOptions, TestMesh } from '../../harness';
import { expectApiError, expectRateLimitHeaders, RATE_LIMIT, sleep } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

/**
 * Two gateways in front of one mesh, as production runs them (issue 23): the rate limit is one
 * budget per key whichever gateway answers (the 121st request of a window is 429 on either), and
 * an Idempotency-Key sent to one gateway is replayed by the other, also when the gateway that took
 * it was SIGKILLed mid-request (the other takes its claim over within seconds; crm answers with
 * the lead the first attempt made).
 */
describe('two gateways share the rate limit and idempotency (e2e)', () => {
  let mesh: TestMesh;
  let second: RunningApp | undefined;
  let workspaceId: string;
  let key: string;

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'crm']);
    ({ workspace: { id: workspaceId }, key } = await mesh.workspace());
    second = spawnApp('gateway', mesh.appEnv('gateway'), await freePort(), 'ignore');
    await waitFor('the second gateway', () => httpReady((second as RunningApp).port), HARNESS.readyTimeoutMs);
  }, meshHookTimeoutMs(3)); // two apps and a second gateway
  afterAll(async () => {
    if (second) await stopApp(second, 3000);
    await mesh?.close();
  });

  const bases = () => [mesh.baseUrl, `http://127.0.0.1:${second!.port}/api/v1`];

  async function on(gateway: 0 | 1, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${bases()[gateway]}${path}`, { method, headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
  }

  it('an Idempotency-Key sent to one gateway is replayed by the other', async () => {
    const idempotencyKey = randomToken(16);
    const lead = { full_name: 'Twin Gateway', email: `twin-${randomToken(6).toLowerCase()}@example.com` };
    const first = await on(0, 'POST', '/leads', { key, body: lead, headers: { 'idempotency-key': idempotencyKey } });
    expect(first.status).toBe(201);
    const replay = await on(1, 'POST', '/leads', { key, body: lead, headers: { 'idempotency-key': idempotencyKey } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const conflict = await on(1, 'POST', '/leads', { key, body: { ...lead, full_name: 'Other' }, headers: { 'idempotency-key': idempotencyKey } });
    expectApiError(conflict, 409, 'conflict');
  });

  it('a keyed POST whose gateway was SIGKILLed mid-request is answered by the other within seconds, with the one lead the first attempt made', async () => {
    // a third gateway to kill, and crm held (SIGSTOP) so the request is mid-flight when it dies
    const doomed = spawnApp('gateway', mesh.appEnv('gateway'), await freePort(), 'ignore');
    await waitFor('the gateway to kill', () => httpReady(doomed.port), HARNESS.readyTimeoutMs);
    const crm = mesh.apps.get('crm')!;
    const idempotencyKey = randomToken(16);
    const lead = { full_name: 'Orphaned Claim', email: `orphan-${randomToken(6).toLowerCase()}@example.com` };
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey };
    crm.child.kill('SIGSTOP');
    try {
      const inFlight = fetch(`http://127.0.0.1:${doomed.port}/api/v1/leads`, { method: 'POST', headers, body: JSON.stringify(lead) }).catch(() => 'no answer');
      await waitFor('the claim taken', async () => (await mesh.query('gateway', 'SELECT 1 FROM idempotency_records WHERE key = $1', [idempotencyKey])).length === 1, allowance(10_000), 50);
      await sleep(300); // its request to crm published
      doomed.child.kill('SIGKILL');
      await doomed.exited;
      expect(await inFlight).toBe('no answer');
    } finally {
      crm.child.kill('SIGCONT');
    }
    // the client sends it again to the other gateway, as a balancer would, until it is not "in progress"
    const started = Date.now();
    let answer: ApiResponse;
    for (;;) {
      answer = await on(1, 'POST', '/leads', { key, body: lead, headers: { 'idempotency-key': idempotencyKey } });
      if (answer.status !== 409 || Date.now() - started > 30_000) break;
      await sleep(200);
    }
    expect(answer.status).toBe(201);
    // well inside the 3 × RPC_TIMEOUT_MS + 5 s after which any claim counts as abandoned
    expect(Date.now() - started).toBeLessThan(allowance(5000));
    const stored = await mesh.query<{ id: string }>('crm', 'SELECT id FROM leads WHERE email = $1', [lead.email]);
    expect(stored).toEqual([{ id: answer.body.id }]);
  });

  /** A fresh key, with 20 s or more left in the window when it returns (a burst must not straddle two windows). */
  async function freshKeyAtWindowStart(): Promise<string> {
    const fresh = (await mesh.key(workspaceId, 'live')).key as string;
    const probe = await on(0, 'GET', '/leads?limit=1', { key: fresh });
    expect(probe.status).toBe(200);
    const { reset } = expectRateLimitHeaders(probe);
    if (reset >= 20) return fresh;
    await sleep(reset * 1000 + 200);
    return freshKeyAtWindowStart();
  }

  it('the 121st request of a window is 429 whichever gateway answers, requests alternating one at a time', async () => {
    const fresh = await freshKeyAtWindowStart();
    const statuses: number[] = [];
    // the probe was the first request of the window: 119 more pass
    for (let n = 0; n < RATE_LIMIT - 1; n++) statuses.push((await on((n % 2) as 0 | 1, 'GET', '/leads?limit=1', { key: fresh })).status);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const refused = await on(1, 'GET', '/leads?limit=1', { key: fresh });
    expectApiError(refused, 429, 'rate_limited');
    expect(expectRateLimitHeaders(refused).remaining).toBe(0);
    for (const gateway of [0, 1] as const) expectApiError(await on(gateway, 'GET', '/leads?limit=1', { key: fresh }), 429, 'rate_limited');
  });

  it('the 121st request of a window is 429 whichever gateway answers, in concurrent bursts spread over both', async () => {
    const fresh = await freshKeyAtWindowStart();
    const burst: ApiResponse[] = [];
    for (let n = 0; n < RATE_LIMIT; n += 20) {
      burst.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => on(((n + i) % 2) as 0 | 1, 'GET', '/leads?limit=1', { key: fresh })))));
    }
    const statuses: Record<number, number> = {};
    for (const res of burst) statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    // the probe counted too (every request does, failed ones included): 119 of the burst pass, the 121st is refused
    expect({ statuses, other: burst.filter((res) => res.status !== 200 && res.status !== 429).map((res) => res.text) })
      .toEqual({ statuses: { 200: RATE_LIMIT - 1, 429: 1 }, other: [] });
    for (const gateway of [0, 1] as const) expectApiError(await on(gateway, 'GET', '/leads?limit=1', { key: fresh }), 429, 'rate_limited');
  });
});
