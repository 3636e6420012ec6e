import { request as httpRequest } from 'node:http';
import { randomToken } from '@app/platform/ids';
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
    mesh = await TestMesh.shared(['gateway', 'crm']);
    const { workspace, key } = await mesh.workspace();
    workspaceId = workspace.id;
    keys.headers = key;
    const extra = await Promise.all(
      Array.from({ length: 4 }, () => mesh.key(workspaceId, 'live')),
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

/**
 * Every request that reaches a route of the API is counted once, however its URL is spelled
 * (the router decodes `%61` to `a`), and the per-address budget of requests without a key is the
 * client's own: X-Forwarded-For is read only from a proxy TRUST_PROXY names. Each test sends from a
 * loopback address of its own (127.0.0.x, all routed to the gateway's 127.0.0.1), so each has a
 * budget of its own; the per-address limit is set low so a burst stays inside one window.
 */
describe('gateway rate limit: every spelling of a route, and whose address counts (e2e)', () => {
  const LIMIT = 20;
  let mesh: TestMesh;
  let key: string;

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'crm'], { RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: String(LIMIT) });
    ({ key } = await mesh.workspace());
  });
  afterAll(() => mesh?.close());

  /** A request from the loopback address `from`, its path sent exactly as written. */
  function requestFrom(from: string, method: string, path: string, options: { key?: string; headers?: Record<string, string>; body?: string } = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: mesh.apps.get('gateway')?.port, localAddress: from, method, path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const received = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') received.set(name, value);
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: received, text, body });
        });
      });
      req.on('error', reject);
      req.end(options.body);
    });
  }

  /** A first request in a window with WINDOW_MARGIN_S seconds left (waiting for the next one otherwise). */
  async function firstInRoomyWindow(send: () => Promise<ApiResponse>, limit: number): Promise<ApiResponse> {
    let first = await send();
    if (expectRateLimitHeaders(first, limit).reset < WINDOW_MARGIN_S) {
      await sleep(expectRateLimitHeaders(first, limit).reset * 1000 + 250);
      first = await send();
      expect(expectRateLimitHeaders(first, limit).remaining).toBe(limit - 1);
    }
    return first;
  }

  describe('public routes (no key), counted per client address', () => {
    it('GET /%61pi/v1/optout is counted in the address\'s budget with its RateLimit headers, and past the limit is 429, as every spelling of the portal', async () => {
      const from = '127.0.0.2';
      const spellings = ['/%61pi/v1/optout', '/api/v1/%6Fptout', '/api/v1/optout', '/%61%70%69/v1/optout'];
      const first = await firstInRoomyWindow(() => requestFrom(from, 'GET', spellings[0]), LIMIT);
      expect(first.status).toBe(200);
      const responses = [first, ...(await inBatches(LIMIT + 9, 5, (i) => requestFrom(from, 'GET', spellings[(i + 1) % spellings.length])))];
      expect(responses).toHaveLength(LIMIT + 10);

      const served = responses.filter((r) => r.status === 200);
      const limited = responses.filter((r) => r.status === 429);
      expect({ served: served.length, limited: limited.length }).toEqual({ served: LIMIT, limited: 10 });
      // each request counted once: the remainders of the served ones are all distinct
      expect(served.map((r) => expectRateLimitHeaders(r, LIMIT).remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
      for (const res of limited) {
        expectApiError(res, 429, 'rate_limited');
        expect(expectRateLimitHeaders(res, LIMIT).remaining).toBe(0);
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      }
      // the form post of the portal (which mails any address) is refused as well, spelled either way
      for (const path of ['/%61pi/v1/optout', '/api/v1/optout']) {
        const post = await requestFrom(from, 'POST', path, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=someone%40example.com' });
        expectApiError(post, 429, 'rate_limited');
      }
    });

    it('an unknown path of the API is counted in the same budget, however spelled', async () => {
      const from = '127.0.0.3';
      const first = await firstInRoomyWindow(() => requestFrom(from, 'GET', '/api/v1/optout'), LIMIT);
      const unknown = [await requestFrom(from, 'GET', '/%61pi/v1/no-such-route'), await requestFrom(from, 'GET', '/api/v1/no-such-route')];
      const after = await requestFrom(from, 'GET', '/api/v1/optout');
      const remaining = [first, ...unknown, after].map((r) => expectRateLimitHeaders(r, LIMIT).remaining);
      const start = remaining[0];
      expect(remaining).toEqual([start, start - 1, start - 2, start - 3]);
    });
  });

  describe('keyed routes, counted per API key', () => {
    it('GET /%61pi/v1/leads is authenticated and counted in the key\'s budget, as is an unknown path spelled so', async () => {
      const plain = await firstInRoomyWindow(() => requestFrom('127.0.0.4', 'GET', '/api/v1/leads', { key }), RATE_LIMIT);
      expect(plain.status).toBe(200);
      const encoded = await requestFrom('127.0.0.4', 'GET', '/%61pi/v1/le%61ds', { key });
      expect(encoded.status).toBe(200);
      expect(encoded.text).toBe(plain.text);
      const unknown = await requestFrom('127.0.0.4', 'GET', '/%61pi/v1/no-such-route', { key });
      expectApiError(unknown, 404, 'not_found');
      const withoutKey = await requestFrom('127.0.0.4', 'GET', '/%61pi/v1/le%61ds');
      expectApiError(withoutKey, 401, 'authentication_failed');
      const again = await requestFrom('127.0.0.4', 'GET', '/api/v1/leads', { key });
      // each keyed request took one from the key's budget; the key-less one took the address's
      const remaining = [plain, encoded, unknown, again].map((r) => expectRateLimitHeaders(r).remaining);
      expect(remaining).toEqual([remaining[0], remaining[0] - 1, remaining[0] - 2, remaining[0] - 3]);
      expectRateLimitHeaders(withoutKey, LIMIT);
    });
  });

  describe('the client address: X-Forwarded-For', () => {
    it('without TRUST_PROXY, a client\'s X-Forwarded-For is ignored: a forged address gets no budget of its own', async () => {
      const from = '127.0.0.5';
      const first = await firstInRoomyWindow(() => requestFrom(from, 'GET', '/api/v1/optout', { headers: { 'x-forwarded-for': '198.51.100.1' } }), LIMIT);
      const forged = await Promise.all(['198.51.100.2', '203.0.113.3', '198.51.100.1, 203.0.113.4'].map((forwarded) =>
        requestFrom(from, 'GET', '/api/v1/optout', { headers: { 'x-forwarded-for': forwarded } })));
      const remaining = [first, ...forged].map((r) => expectRateLimitHeaders(r, LIMIT).remaining);
      expect(remaining.slice(1).sort((x, y) => y - x)).toEqual([remaining[0] - 1, remaining[0] - 2, remaining[0] - 3]);
    });

    it('with TRUST_PROXY naming the proxy, the address it forwards is the client\'s; another peer\'s header is still ignored', async () => {
      mesh.env.TRUST_PROXY = '127.0.0.1';
      await mesh.stopApp('gateway');
      await mesh.startApp('gateway');

      // through the proxy: each forwarded client has a budget of its own, and what a client put
      // before the proxy's entry does not choose it
      const viaProxy = (forwarded: string) => requestFrom('127.0.0.1', 'GET', '/api/v1/optout', { headers: { 'x-forwarded-for': forwarded } });
      const client = await firstInRoomyWindow(() => viaProxy('203.0.113.7'), LIMIT);
      expect(expectRateLimitHeaders(client, LIMIT).remaining).toBe(LIMIT - 1);
      const other = await viaProxy('203.0.113.8');
      expect(expectRateLimitHeaders(other, LIMIT).remaining).toBe(LIMIT - 1);
      const prepended = await viaProxy('198.51.100.99, 203.0.113.7');
      expect(expectRateLimitHeaders(prepended, LIMIT).remaining).toBe(LIMIT - 2);

      // a peer that is not the proxy: its own address counts, whatever it forwards
      const direct = await firstInRoomyWindow(() => requestFrom('127.0.0.6', 'GET', '/api/v1/optout', { headers: { 'x-forwarded-for': '203.0.113.20' } }), LIMIT);
      const forged = await requestFrom('127.0.0.6', 'GET', '/api/v1/optout', { headers: { 'x-forwarded-for': '203.0.113.21' } });
      expect(expectRateLimitHeaders(forged, LIMIT).remaining).toBe(expectRateLimitHeaders(direct, LIMIT).remaining - 1);
    });
  });
});
