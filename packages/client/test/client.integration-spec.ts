import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { IDEMPOTENCY_CONFLICT_MESSAGES } from '@app/contracts';
import {
  ApiConnectionError, ApiError, ApiServerError, AuthenticationError, ConflictError, DEFAULT_MAX_RETRIES, InvalidRequestError, isInProgressConflict,
  LeadIntelClient, NotFoundError, PermissionError, RateLimitError, retryDelayMs,
} from '../src';
import { allowance } from '../../../test/support/timing';

/**
 * The client against a real local HTTP server this test starts (no stand-in for fetch): what it
 * sends (Authorization, Service-Version, Idempotency-Key), which answers it sends again (no
 * answer, 429, 500, 502, 503, 504, the gateway's 409 "still being processed") with the same key
 * and body, how long it waits (backoff with jitter, Retry-After, the caps), what it returns at
 * once, and how it walks a cursor list.
 */
interface Seen { method: string; url: string; headers: IncomingMessage['headers']; body: string; at: number }
type Handler = (req: Seen, n: number, res: ServerResponse) => void;

class LocalApi {
  seen: Seen[] = [];
  handler: Handler = (_req, _n, res) => json(res, 200, { ok: true });
  private constructor(private readonly server: Server) {}

  static async start(): Promise<LocalApi> {
    let api!: LocalApi;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        api.seen.push(seen);
        api.handler(seen, api.seen.length, res);
      });
    });
    api = new LocalApi(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/v1`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${status}`, ...headers }).end(JSON.stringify(body));
};
/** An answer given late, without holding the test process open once the suite is done. */
const later = (answer: () => void, ms: number) => void setTimeout(answer, ms).unref();
const errorBody = (code: string, message: string) => ({ error: { type: 'rate_limit_error', code, message, doc_url: `https://docs.example.com/errors#${code}` } });

describe('LeadIntelClient against a local HTTP server', () => {
  let api: LocalApi;
  const waits: number[] = [];
  const client = (over: Partial<ConstructorParameters<typeof LeadIntelClient>[0]> = {}) =>
    new LeadIntelClient({ apiKey: 'svc_test_abc', baseUrl: api.baseUrl, sleep: async (ms) => { waits.push(ms); }, ...over });

  beforeAll(async () => { api = await LocalApi.start(); });
  afterAll(() => api.close());
  beforeEach(() => { api.seen = []; waits.length = 0; });

  it('sends the key, the pinned version, and an Idempotency-Key on a POST (not on a GET)', async () => {
    api.handler = (req, _n, res) => json(res, req.method === 'POST' ? 201 : 200, { id: 'lead_1', object: 'lead' });
    const c = client({ apiVersion: '2026-09-28' });
    const created = await c.api.POST('/leads', { body: { full_name: 'Ada Lovelace', email: 'ada@analytical.test' } });
    expect(created.response.status).toBe(201);
    await c.api.GET('/leads/{id}', { params: { path: { id: 'lead_1' } } });
    const [post, get] = api.seen;
    expect(post).toMatchObject({ method: 'POST', url: '/api/v1/leads', headers: { authorization: 'Bearer svc_test_abc', 'service-version': '2026-09-28', 'content-type': 'application/json' } });
    expect(post.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(post.body)).toEqual({ full_name: 'Ada Lovelace', email: 'ada@analytical.test' });
    expect(get).toMatchObject({ method: 'GET', url: '/api/v1/leads/lead_1' });
    expect(get.headers['idempotency-key']).toBeUndefined();
  });

  it('keeps an Idempotency-Key the call gives, and makes a new one per call otherwise', async () => {
    api.handler = (_req, _n, res) => json(res, 201, { id: 'lead_1', object: 'lead' });
    const c = client();
    await c.api.POST('/leads', { body: { full_name: 'A' }, params: { header: { 'Idempotency-Key': 'import-42' } } });
    await c.api.POST('/leads', { body: { full_name: 'B' } });
    await c.api.POST('/leads', { body: { full_name: 'C' } });
    const keys = api.seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toBe('import-42');
    expect(new Set(keys).size).toBe(3);
  });

  it('retries a 429 after Retry-After, with the same body and the same Idempotency-Key, and returns the success', async () => {
    api.handler = (_req, n, res) => (n < 3 ? json(res, 429, errorBody('rate_limited', 'slow down'), { 'retry-after': '2' }) : json(res, 201, { id: 'lead_1', object: 'lead' }));
    const created = await client().api.POST('/leads', { body: { full_name: 'Ada' } });
    expect(created.response.status).toBe(201);
    expect(api.seen).toHaveLength(3);
    expect(new Set(api.seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(new Set(api.seen.map((s) => s.body))).toEqual(new Set([JSON.stringify({ full_name: 'Ada' })]));
    expect(waits).toEqual([2000, 2000]);
  });

  it('waits for real when no sleep is given (Retry-After: 1)', async () => {
    api.handler = (_req, n, res) => (n === 1 ? json(res, 503, errorBody('internal_error', 'unavailable'), { 'retry-after': '1' }) : json(res, 200, { object: 'credit_balance' }));
    const started = Date.now();
    const res = await new LeadIntelClient({ apiKey: 'svc_test_abc', baseUrl: api.baseUrl }).api.GET('/credits');
    expect(res.response.status).toBe(200);
    expect(api.seen).toHaveLength(2);
    expect(api.seen[1].at - api.seen[0].at).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeLessThan(1000 + allowance(4000));
  });

  it('gives up after maxRetries and returns the last answer with its error object', async () => {
    api.handler = (_req, _n, res) => json(res, 429, errorBody('rate_limited', 'slow down'), { 'retry-after': '1' });
    const res = await client({ maxRetries: 2 }).api.GET('/leads');
    expect(res.response.status).toBe(429);
    expect(res.error).toMatchObject({ error: { code: 'rate_limited' } });
    expect(api.seen).toHaveLength(3);
    expect(waits).toEqual([1000, 1000]);
  });

  it('does not wait for a Retry-After beyond maxRetryDelayMs, nor retry a 400', async () => {
    api.handler = (_req, _n, res) => json(res, 429, errorBody('rate_limited', 'slow down'), { 'retry-after': '3600' });
    expect((await client().api.GET('/leads')).response.status).toBe(429);
    expect(api.seen).toHaveLength(1);
    api.seen = [];
    api.handler = (_req, _n, res) => json(res, 400, errorBody('invalid_request', 'limit must be at most 100'));
    expect((await client().api.GET('/leads')).response.status).toBe(400);
    expect(api.seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('backoff: 0.5 s doubling to a 5 s cap, times 0.5 to 1 (jitter); a Retry-After in seconds or as an HTTP date is a floor', () => {
    const top = () => 0.999999;
    const bottom = () => 0;
    expect([1, 2, 3, 4, 5, 6, 10].map((r) => retryDelayMs(null, r, top))).toEqual([500, 1000, 2000, 4000, 5000, 5000, 5000]);
    expect([1, 2, 3, 4, 5, 6, 10].map((r) => retryDelayMs(null, r, bottom))).toEqual([250, 500, 1000, 2000, 2500, 2500, 2500]);
    for (let i = 0; i < 200; i++) {
      const ms = retryDelayMs(null, 2);
      expect(ms).toBeGreaterThanOrEqual(500);
      expect(ms).toBeLessThanOrEqual(1000);
    }
    expect(retryDelayMs('7', 1, top)).toBe(7000);
    expect(retryDelayMs('0', 3, top)).toBe(2000);
    expect(retryDelayMs(new Date(Date.UTC(2026, 0, 1, 0, 0, 30)).toUTCString(), 1, top, Date.UTC(2026, 0, 1))).toBe(30_000);
    expect(retryDelayMs('soon', 1, top)).toBe(500);
  });

  it.each([429, 500, 502, 503, 504])('retries a %i (the same method, body and Idempotency-Key) and returns the success', async (status) => {
    api.handler = (_req, n, res) => (n === 1 ? json(res, status, errorBody(status === 429 ? 'rate_limited' : 'internal_error', 'try again')) : json(res, 201, { id: 'lead_1', object: 'lead' }));
    const created = await client().api.POST('/leads', { body: { full_name: 'Ada' } });
    expect(created.response.status).toBe(201);
    expect(created.data?.id).toBe('lead_1');
    expect(api.seen.map((s) => `${s.method} ${s.url} ${s.body}`)).toEqual(Array(2).fill('POST /api/v1/leads {"full_name":"Ada"}'));
    const keys = api.seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(250);
    expect(waits[0]).toBeLessThanOrEqual(500);
  });

  it("retries the gateway's 409 \"still being processed\" with the same key, and no other 409", async () => {
    const conflict = (message: string, param?: string) => ({ error: { type: 'invalid_request_error', code: 'conflict', message, ...(param ? { param } : {}), doc_url: 'x' } });
    api.handler = (_req, n, res) => (n === 1 ? json(res, 409, conflict(IDEMPOTENCY_CONFLICT_MESSAGES.inProgress, 'Idempotency-Key')) : json(res, 201, { id: 'lead_1', object: 'lead' }));
    const created = await client().api.POST('/leads', { body: { full_name: 'Ada' }, params: { header: { 'Idempotency-Key': 'import-7' } } });
    expect(created.response.status).toBe(201);
    expect(api.seen.map((s) => s.headers['idempotency-key'])).toEqual(['import-7', 'import-7']);

    const final = [
      conflict(IDEMPOTENCY_CONFLICT_MESSAGES.mismatch, 'Idempotency-Key'),
      conflict(IDEMPOTENCY_CONFLICT_MESSAGES.otherGrants, 'Idempotency-Key'),
      conflict('A lead with this email already exists: lead_9', 'email'),
      conflict('The tag was changed by another request; try again'),
    ];
    for (const body of final) {
      api.seen = [];
      api.handler = (_req, _n, res) => json(res, 409, body);
      const answer = await client().api.POST('/leads', { body: { full_name: 'Ada' } });
      expect({ message: body.error.message, status: answer.response.status, attempts: api.seen.length }).toEqual({ message: body.error.message, status: 409, attempts: 1 });
      expect(answer.error).toEqual(body);
    }
  });

  it("tells the gateway's in-progress 409 from its other Idempotency-Key conflicts by their wording", () => {
    const of = (message: string) => ({ error: { type: 'invalid_request_error', code: 'conflict', message, param: 'Idempotency-Key' } });
    expect(isInProgressConflict(409, of(IDEMPOTENCY_CONFLICT_MESSAGES.inProgress))).toBe(true);
    expect(isInProgressConflict(409, of(IDEMPOTENCY_CONFLICT_MESSAGES.mismatch))).toBe(false);
    expect(isInProgressConflict(409, of(IDEMPOTENCY_CONFLICT_MESSAGES.otherGrants))).toBe(false);
    expect(isInProgressConflict(400, of(IDEMPOTENCY_CONFLICT_MESSAGES.inProgress))).toBe(false);
    expect(isInProgressConflict(409, { error: { ...of(IDEMPOTENCY_CONFLICT_MESSAGES.inProgress).error, param: 'email' } })).toBe(false);
    expect(isInProgressConflict(409, 'still being processed')).toBe(false);
  });

  it.each([
    [400, 'invalid_request'], [401, 'authentication_failed'], [402, 'insufficient_credits'], [403, 'permission_denied'], [404, 'not_found'],
  ])('returns a %i at once, unretried', async (status, code) => {
    api.handler = (_req, _n, res) => json(res, status, errorBody(code, 'no'), { 'retry-after': '1' });
    const answer = await client().api.POST('/leads', { body: { full_name: 'Ada' } });
    expect({ status: answer.response.status, code: answer.error?.error.code, attempts: api.seen.length, waits }).toEqual({ status, code, attempts: 1, waits: [] });
  });

  it(`stops after maxRetries (default ${DEFAULT_MAX_RETRIES}) and returns the last answer; 0 turns retrying off`, async () => {
    api.handler = (_req, n, res) => json(res, 503, errorBody('service_unavailable', `attempt ${n}`));
    const answer = await client().api.GET('/leads');
    expect(DEFAULT_MAX_RETRIES).toBe(4);
    expect({ status: answer.response.status, message: answer.error?.error.message, attempts: api.seen.length, waits: waits.length }).toEqual({ status: 503, message: 'attempt 5', attempts: 5, waits: 4 });
    api.seen = [];
    waits.length = 0;
    await client({ maxRetries: 0 }).api.GET('/leads');
    expect({ attempts: api.seen.length, waits: waits.length }).toEqual({ attempts: 1, waits: 0 });
    api.seen = [];
    await client({ maxRetries: 5, random: () => 0.999999 }).api.GET('/leads');
    expect(api.seen).toHaveLength(6);
    expect(waits).toEqual([500, 1000, 2000, 4000, 5000]);
  });

  it("the cap: the gateway's 503 with Retry-After: 5 (a database failing over) is waited out for at least 20 s by default, with the same key, and a success inside that is the caller's answer", async () => {
    const unavailable = (res: ServerResponse) => json(res, 503, { error: { type: 'api_error', code: 'service_unavailable', message: 'not answering', doc_url: 'https://docs.example.com/errors#service_unavailable' } }, { 'retry-after': '5' });
    // the worst jitter (the shortest backoff) still waits Retry-After each time
    api.handler = (_req, n, res) => (n < 5 ? unavailable(res) : json(res, 201, { id: 'lead_1', object: 'lead' }));
    const created = await client({ random: () => 0 }).api.POST('/leads', { body: { full_name: 'Ada' } });
    expect(created.response.status).toBe(201);
    expect(waits).toEqual([5000, 5000, 5000, 5000]);
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(20_000);
    expect(new Set(api.seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    // the longest backoff (4 s before the 4th retry) is still under Retry-After: the cap is 4 x 5 s, then the 503 is returned
    api.seen = [];
    waits.length = 0;
    api.handler = (_req, _n, res) => unavailable(res);
    const gaveUp = await client({ random: () => 0.999999 }).api.POST('/leads', { body: { full_name: 'Ada' } });
    expect({ status: gaveUp.response.status, code: gaveUp.error?.error.code, attempts: api.seen.length }).toEqual({ status: 503, code: 'service_unavailable', attempts: 5 });
    expect(waits).toEqual([5000, 5000, 5000, 5000]);
  });

  it('by default outlasts a dead gateway\'s claim: a POST answered "still being processed" for 2.5 s is answered (real waits)', async () => {
    const conflict = { error: { type: 'invalid_request_error', code: 'conflict', message: IDEMPOTENCY_CONFLICT_MESSAGES.inProgress, param: 'Idempotency-Key', doc_url: 'x' } };
    let first = 0;
    api.handler = (req, _n, res) => {
      first ||= req.at;
      return req.at - first < 2500 ? json(res, 409, conflict) : json(res, 201, { id: 'lead_1', object: 'lead' });
    };
    // the least the jitter allows, so the test shows the default's floor rather than a lucky draw
    const created = await new LeadIntelClient({ apiKey: 'svc_test_abc', baseUrl: api.baseUrl, random: () => 0 }).api.POST('/leads', { body: { full_name: 'Ada' } });
    expect({ status: created.response.status, id: created.data?.id }).toEqual({ status: 201, id: 'lead_1' });
    expect(new Set(api.seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
  });

  it('retries a connection cut before the answer, with the same Idempotency-Key, and returns the answer', async () => {
    api.handler = (_req, n, res) => (n === 1 ? void res.socket?.destroy() : json(res, 201, { id: 'lead_1', object: 'lead' }));
    const created = await client().api.POST('/leads', { body: { full_name: 'Ada' } });
    expect(created.response.status).toBe(201);
    expect(api.seen).toHaveLength(2);
    expect(new Set(api.seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(new Set(api.seen.map((s) => s.body))).toEqual(new Set(['{"full_name":"Ada"}']));
    expect(waits).toHaveLength(1);
  });

  it('retries a refused connection, and throws ApiConnectionError (the cause kept) when no attempt was answered', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = client({ baseUrl: `http://127.0.0.1:${port}/api/v1` });
    const error = await refused.api.GET('/leads').then(() => undefined, (err: unknown) => err);
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect((error as Error).message).toMatch(/no answer after 5 attempts/);
    expect(JSON.stringify((error as { cause?: { cause?: { code?: string } } }).cause?.cause?.code)).toBe('"ECONNREFUSED"');
    expect(waits).toHaveLength(4);
  });

  it('an attempt with no answer begun within timeoutMs is a connection error: retried with the same key', async () => {
    api.handler = (_req, n, res) => (n === 1 ? void later(() => json(res, 201, { id: 'late', object: 'lead' }), 1500) : json(res, 201, { id: 'lead_1', object: 'lead' }));
    const started = Date.now();
    const created = await client({ timeoutMs: 300 }).api.POST('/leads', { body: { full_name: 'Ada' } });
    expect({ status: created.response.status, id: created.data?.id }).toEqual({ status: 201, id: 'lead_1' });
    expect(Date.now() - started).toBeLessThan(300 + allowance(1100));
    expect(api.seen).toHaveLength(2);
    expect(api.seen[1].headers['idempotency-key']).toBe(api.seen[0].headers['idempotency-key']);
    api.seen = [];
    api.handler = (_req, _n, res) => void later(() => json(res, 200, { object: 'list', data: [] }), 1500);
    const error = await client({ timeoutMs: 200, maxRetries: 1 }).api.GET('/leads').then(() => undefined, (err: unknown) => err);
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect((error as Error).message).toMatch(/no answer began within 200 ms/);
    expect(api.seen).toHaveLength(2);
  });

  it('does not send again a request the caller aborted', async () => {
    api.handler = (_req, _n, res) => void later(() => json(res, 200, { object: 'list', data: [] }), 1000);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await client().api.GET('/leads', { signal: controller.signal }).then(() => undefined, (err: unknown) => err);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(error).not.toBeInstanceOf(ApiConnectionError);
    expect(api.seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('an error is typed by its status', () => {
    const body = (code: string) => ({ error: { type: 'x', code: code as never, message: 'm', doc_url: 'x' } });
    expect(ApiError.from(400, body('invalid_request'), null)).toBeInstanceOf(InvalidRequestError);
    expect(ApiError.from(401, body('authentication_failed'), null)).toBeInstanceOf(AuthenticationError);
    expect(ApiError.from(403, body('permission_denied'), null)).toBeInstanceOf(PermissionError);
    expect(ApiError.from(404, body('not_found'), null)).toBeInstanceOf(NotFoundError);
    expect(ApiError.from(409, body('conflict'), null)).toBeInstanceOf(ConflictError);
    expect(ApiError.from(429, body('rate_limited'), null)).toBeInstanceOf(RateLimitError);
    for (const status of [500, 502, 503, 504]) expect(ApiError.from(status, undefined, 'req_1')).toBeInstanceOf(ApiServerError);
    const teapot = ApiError.from(418, undefined, null);
    expect([teapot.constructor, teapot.name, teapot.message]).toEqual([ApiError, 'ApiError', 'HTTP 418']);
    expect(ApiError.from(404, body('not_found'), 'req_9')).toMatchObject({ name: 'NotFoundError', status: 404, code: 'not_found', requestId: 'req_9', message: '404 not_found: m' });
  });

  it('paginate walks every page with starting_after = next_cursor until has_more is false; pages yields the envelopes', async () => {
    const all = Array.from({ length: 7 }, (_, i) => ({ id: `lead_${i}`, object: 'lead', full_name: `Lead ${i}` }));
    api.handler = (req, _n, res) => {
      const url = new URL(req.url, 'http://x');
      const limit = Number(url.searchParams.get('limit') ?? 25);
      const after = url.searchParams.get('starting_after');
      const start = after ? all.findIndex((l) => `cur_${l.id}` === after) + 1 : 0;
      const data = all.slice(start, start + limit);
      const has_more = start + limit < all.length;
      json(res, 200, { object: 'list', data, has_more, next_cursor: has_more ? `cur_${data[data.length - 1].id}` : null });
    };
    const ids: string[] = [];
    for await (const lead of client().paginate('/leads', { query: { limit: 3, tag: 'vip' } })) ids.push(lead.id);
    expect(ids).toEqual(all.map((l) => l.id));
    expect(api.seen.map((s) => s.url)).toEqual([
      '/api/v1/leads?limit=3&tag=vip', '/api/v1/leads?limit=3&tag=vip&starting_after=cur_lead_2', '/api/v1/leads?limit=3&tag=vip&starting_after=cur_lead_5',
    ]);
    const sizes: number[] = [];
    for await (const page of client().pages('/leads', { query: { limit: 5 } })) sizes.push(page.data.length);
    expect(sizes).toEqual([5, 2]);
    // a consumer may stop early: no further page is asked for
    api.seen = [];
    for await (const lead of client().paginate('/leads', { query: { limit: 3 } })) if (lead.id === 'lead_1') break;
    expect(api.seen).toHaveLength(1);
  });

  it('a list of a path with parameters, and a failed page is an ApiError with the code and Request-Id', async () => {
    api.handler = (req, _n, res) => (req.url.includes('we_missing')
      ? json(res, 404, { error: { type: 'invalid_request_error', code: 'not_found', message: 'No webhook endpoint we_missing.', doc_url: 'x' } })
      : json(res, 200, { object: 'list', data: [{ id: 'whd_1' }], has_more: false, next_cursor: null }));
    const got: unknown[] = [];
    for await (const d of client().paginate('/webhook_endpoints/{id}/deliveries', { path: { id: 'we_1' } })) got.push(d);
    expect(got).toHaveLength(1);
    expect(api.seen[0].url).toBe('/api/v1/webhook_endpoints/we_1/deliveries');
    const failing = async () => { for await (const d of client().paginate('/webhook_endpoints/{id}/deliveries', { path: { id: 'we_missing' } })) void d; };
    await expect(failing()).rejects.toMatchObject({ name: 'NotFoundError', status: 404, code: 'not_found', requestId: 'req_404' });
    await expect(failing()).rejects.toBeInstanceOf(ApiError);
  });

  it('refuses to start without a key', () => {
    expect(() => new LeadIntelClient({ apiKey: '' })).toThrow(/apiKey/);
  });
});
