import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { ApiError, LeadIntelClient, retryDelayMs } from '../src';

/**
 * The client against a real local HTTP server this test starts (no stand-in for fetch): what it
 * sends (Authorization, Service-Version, Idempotency-Key), how it retries 429 and 503 as
 * Retry-After says and within its bounds, and how it walks a cursor list.
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
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${status}`, ...headers }).end(JSON.stringify(body));
};
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
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('gives up after maxRetries and returns the last answer with its error object', async () => {
    api.handler = (_req, _n, res) => json(res, 429, errorBody('rate_limited', 'slow down'), { 'retry-after': '1' });
    const res = await client({ maxRetries: 2 }).api.GET('/leads');
    expect(res.response.status).toBe(429);
    expect(res.error).toMatchObject({ error: { code: 'rate_limited' } });
    expect(api.seen).toHaveLength(3);
    expect(waits).toEqual([1000, 1000]);
  });

  it('does not wait for a Retry-After beyond maxRetryDelayMs, nor retry other errors', async () => {
    api.handler = (_req, _n, res) => json(res, 429, errorBody('rate_limited', 'slow down'), { 'retry-after': '3600' });
    expect((await client().api.GET('/leads')).response.status).toBe(429);
    expect(api.seen).toHaveLength(1);
    api.seen = [];
    api.handler = (_req, _n, res) => json(res, 500, errorBody('internal_error', 'boom'));
    expect((await client().api.GET('/leads')).response.status).toBe(500);
    expect(api.seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('without Retry-After: a short doubling backoff; an HTTP date is honoured too', () => {
    expect([0, 1, 2].map((a) => retryDelayMs(null, a))).toEqual([500, 1000, 2000]);
    expect(retryDelayMs('7', 0)).toBe(7000);
    expect(retryDelayMs(new Date(Date.UTC(2026, 0, 1, 0, 0, 30)).toUTCString(), 0, Date.UTC(2026, 0, 1))).toBe(30_000);
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
    await expect(failing()).rejects.toMatchObject({ name: 'ApiError', status: 404, code: 'not_found', requestId: 'req_404' });
    await expect(failing()).rejects.toBeInstanceOf(ApiError);
  });

  it('refuses to start without a key', () => {
    expect(() => new LeadIntelClient({ apiKey: '' })).toThrow(/apiKey/);
  });
});
