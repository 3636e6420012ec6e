import { randomToken } from '@app/platform';
import { ApiResponse, RequestOptions, TestMesh } from '../../harness';
import {
  expectApiError, expectRateLimitHeaders, inBatches, listLeads, RATE_LIMIT, RateLimitHeaders, sleep,
} from '../../support/gateway-assertions';

/**
 * Spec, Limits and Errors (429): 120 requests per minute per key in one-minute windows; every
 * request counts, failed ones too; two keys of one workspace have separate budgets; the
 * RateLimit-* headers on every response; 429 `rate_limited` with Retry-After; a rate-limited
 * request changes nothing.
 *
 * The window is fixed, so a burst must not straddle its end: each test that needs a whole
 * budget first makes sure at least WINDOW_MARGIN_S seconds of the current window are left,
 * waiting for the next window otherwise.
 */
const WINDOW_MARGIN_S = 15;
const BATCH = 20;

interface Timed extends ApiResponse {
  sentAt: number;
  receivedAt: number;
}

describe('gateway rate limit (e2e)', () => {
  let mesh: TestMesh;
  let workspaceId: string;
  /** Fresh API keys of one workspace, one per purpose, so that budgets never mix between tests. */
  const keys: Record<'headers' | 'burst' | 'failures' | 'limited' | 'other', string> = {} as never;

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'crm']);
    const { workspace, key } = await mesh.workspace();
    workspaceId = workspace.id;
    keys.headers = key;
    const extra = await Promise.all(
      Array.from({ length: 4 }, () => mesh.admin('key:create', '--workspace', workspaceId, '--mode', 'live')),
    );
    [keys.burst, keys.failures, keys.limited, keys.other] = extra.map((created) => created.key);
  });
  afterAll(() => mesh?.close());

  async function timed(method: string, path: string, options: RequestOptions = {}): Promise<Timed> {
    const sentAt = Date.now();
    const res = await mesh.request(method, path, options);
    return { ...res, sentAt, receivedAt: Date.now() };
  }

  /**
   * The interval in which the current window must end, judging by a response's RateLimit-Reset
   * (whole seconds, so the true remainder lies in (reset - 1, reset]).
   */
  function windowEnd(res: Timed, reset = expectRateLimitHeaders(res).reset): [number, number] {
    return [res.sentAt + (reset - 1) * 1000 - 50, res.receivedAt + reset * 1000 + 50];
  }

  function expectSameWindow(responses: Timed[]): [number, number] {
    const bounds = responses.map((res) => windowEnd(res));
    const lo = Math.max(...bounds.map(([l]) => l));
    const hi = Math.min(...bounds.map(([, h]) => h));
    expect({ lo, hi, ok: lo <= hi }).toEqual({ lo, hi, ok: true });
    return [lo, hi];
  }

  /**
   * Makes a first request with `key` in a window that has at least WINDOW_MARGIN_S seconds left
   * (the request counts). Returns it with its headers.
   */
  async function firstRequestInRoomyWindow(key: string): Promise<{ first: Timed; headers: RateLimitHeaders }> {
    let first = await timed('GET', '/leads', { key });
    let headers = expectRateLimitHeaders(first);
    if (headers.reset < WINDOW_MARGIN_S) {
      await sleep(headers.reset * 1000 + 250);
      first = await timed('GET', '/leads', { key });
      headers = expectRateLimitHeaders(first);
      expect(headers.remaining).toBe(RATE_LIMIT - 1);
    }
    expect(first.status).toBe(200);
    return { first, headers };
  }

  /** Spends what is left of `key`'s budget with requests that each produce some response other than 429. */
  async function spend(key: string, count: number, request: (i: number) => Promise<Timed>): Promise<Timed[]> {
    const responses = await inBatches(count, BATCH, request);
    for (const res of responses) {
      expect({ status: res.status, text: res.text }).not.toEqual({ status: 429, text: expect.anything() });
    }
    return responses;
  }

  /** A mix of successful and failed requests, all authenticated with `key`. */
  function mixedRequest(key: string) {
    return (i: number): Promise<Timed> => {
      switch (i % 5) {
        case 0: return timed('GET', '/leads', { key });
        case 1: return timed('GET', '/leads?limit=0', { key }); // 400
        case 2: return timed('GET', '/leads/lead_missing', { key }); // 404
        case 3: return timed('GET', '/no-such-route', { key }); // 404
        default: return timed('POST', '/leads', { key, rawBody: '{', headers: { 'content-type': 'application/json' } }); // 400
      }
    };
  }

  it('puts RateLimit-Limit, -Remaining and -Reset (seconds) on every response, counting each request once', async () => {
    const key = keys.headers;
    const { first } = await firstRequestInRoomyWindow(key);
    const lead = await timed('POST', '/leads', { key, body: { full_name: 'Header Lead' } });
    const responses: Timed[] = [
      first, // 200
      lead, // 201
      await timed('GET', `/leads/${lead.body.id}`, { key }), // 200
      await timed('PATCH', `/leads/${lead.body.id}`, { key, body: { title: 'CEO' } }), // 200
      await timed('GET', '/leads?limit=0', { key }), // 400
      await timed('POST', '/leads', { key, body: { full_name: 'x', bogus: 1 } }), // 400
      await timed('GET', '/leads/lead_missing', { key }), // 404
      await timed('GET', '/no-such-route', { key }), // 404
      await timed('DELETE', `/leads/${lead.body.id}`, { key }), // 200
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 201, 200, 200, 400, 400, 404, 404, 200]);
    const remaining = responses.map((r) => expectRateLimitHeaders(r).remaining);
    const start = remaining[0];
    expect(remaining).toEqual(remaining.map((_, i) => start - i));
    expectSameWindow(responses);

    // Requests without a valid key carry them too.
    expectRateLimitHeaders(await mesh.request('GET', '/leads'));
    expectRateLimitHeaders(await mesh.request('GET', '/leads', { key: `svc_live_${randomToken(32)}` }));
  });

  it('answers the 121st request of a minute with 429 rate_limited and Retry-After until the window ends', async () => {
    const key = keys.burst;
    const { first, headers } = await firstRequestInRoomyWindow(key);
    const used = RATE_LIMIT - headers.remaining;
    const burst = await spend(key, RATE_LIMIT - used, mixedRequest(key));
    const all = [first, ...burst];
    expect(all).toHaveLength(RATE_LIMIT - used + 1);

    // Every request was counted exactly once, concurrent or not: the remainders are all distinct.
    const remainders = all.map((r) => expectRateLimitHeaders(r).remaining).sort((x, y) => x - y);
    expect(remainders).toEqual(Array.from({ length: all.length }, (_, i) => i));
    const [windowLo, windowHi] = expectSameWindow(all);

    const limited = await timed('GET', '/leads', { key });
    expectApiError(limited, 429, 'rate_limited');
    const limitHeaders = expectRateLimitHeaders(limited);
    expect(limitHeaders.remaining).toBe(0);
    expect(limited.body.error.type).toBe('rate_limit_error');
    const retryAfter = limited.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    const seconds = Number(retryAfter);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    // Waiting Retry-After seconds gets past the window's end, and not much more.
    expect(limited.receivedAt + seconds * 1000 + 50).toBeGreaterThanOrEqual(windowLo);
    expect(limited.sentAt + seconds * 1000).toBeLessThanOrEqual(windowHi + 1000);
    expectSameWindow([...all, limited]);

    // It stays limited for the rest of the window, whatever the request.
    for (const [method, path, options] of [
      ['POST', '/leads', { body: { full_name: 'Over Limit' } }],
      ['GET', '/leads/lead_missing', {}],
      ['GET', '/no-such-route', {}],
    ] as [string, string, RequestOptions][]) {
      const res = await timed(method, path, { ...options, key });
      expectApiError(res, 429, 'rate_limited');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    }
  });

  it('counts failed requests: 120 failures leave nothing for a valid request', async () => {
    const key = keys.failures;
    const first = await timed('GET', '/leads?limit=1000', { key }); // 400, counted
    expectApiError(first, 400, 'invalid_request', 'limit');
    let used = RATE_LIMIT - expectRateLimitHeaders(first).remaining;
    if (expectRateLimitHeaders(first).reset < WINDOW_MARGIN_S) {
      await sleep(expectRateLimitHeaders(first).reset * 1000 + 250);
      used = 0;
    }
    const failures = await spend(key, RATE_LIMIT - used, (i) =>
      i % 2 === 0
        ? timed('GET', '/leads?limit=0', { key })
        : timed('POST', '/leads', { key, body: { full_name: 'x', unknown_field: i } }),
    );
    for (const res of failures) expectApiError(res, 400, 'invalid_request');
    expect(Math.min(...failures.map((r) => expectRateLimitHeaders(r).remaining))).toBe(0);

    const valid = await timed('GET', '/leads', { key });
    expectApiError(valid, 429, 'rate_limited');
    expect(valid.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it("gives two keys of one workspace separate budgets; a rate-limited POST creates nothing", async () => {
    const limitedKey = keys.limited;
    const otherKey = keys.other;
    const { headers } = await firstRequestInRoomyWindow(limitedKey);
    await spend(limitedKey, headers.remaining, (i) => timed('GET', i % 2 ? '/leads' : '/leads/lead_missing', { key: limitedKey }));
    expectApiError(await timed('GET', '/leads', { key: limitedKey }), 429, 'rate_limited');

    // The workspace's other key still has its whole budget in this very window.
    const other = await timed('GET', '/leads', { key: otherKey });
    expect(other.status).toBe(200);
    expect(expectRateLimitHeaders(other).remaining).toBe(RATE_LIMIT - 1);

    // A write with the limited key changes nothing, and leaves no idempotency record behind.
    const name = `Limited ${randomToken(8)}`;
    const idempotencyKey = `rl-${randomToken(12)}`;
    const before = await listLeads(mesh, otherKey);
    const write = await timed('POST', '/leads', {
      key: limitedKey,
      body: { full_name: name, email: `${randomToken(8).toLowerCase()}@example.com` },
      headers: { 'idempotency-key': idempotencyKey },
    });
    expectApiError(write, 429, 'rate_limited');
    expect(write.text).not.toContain(name);
    const after = await listLeads(mesh, otherKey);
    expect(after.map((lead) => lead.id)).toEqual(before.map((lead) => lead.id));
    expect(after.map((lead) => lead.full_name)).not.toContain(name);
    expect(await mesh.query('gateway', 'SELECT key FROM idempotency_records WHERE workspace_id = $1 AND key = $2', [workspaceId, idempotencyKey])).toEqual([]);

    // Still the same window: the limited key is still refused (so the other key's budget was not a new window's).
    const still = await timed('GET', '/leads', { key: limitedKey });
    expectApiError(still, 429, 'rate_limited');
    expectSameWindow([other, still]);
  });
});
