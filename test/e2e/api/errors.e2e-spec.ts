import { ERROR_CODES } from '@app/contracts/error-codes';
import { ApiResponse, TestMesh } from '../../harness';
import { expectApiError, expectRateLimitHeaders, expectRequestId, listLeads } from '../../support/gateway-assertions';

/**
 * Spec, Errors and Endpoint conventions: one error object for every failure, including unknown
 * routes and unparsable bodies; bodies must be JSON objects sent as application/json; unknown
 * body fields are 400 naming the field; objects of another workspace are 404.
 */
describe('gateway error handling (e2e)', () => {
  let mesh: TestMesh;
  let a: Awaited<ReturnType<TestMesh['workspace']>>;
  let b: Awaited<ReturnType<TestMesh['workspace']>>;

  beforeAll(async () => {
    mesh = await TestMesh.shared(['gateway', 'crm']);
    [a, b] = await Promise.all([mesh.workspace(), mesh.workspace()]);
  });
  afterAll(() => mesh?.close());

  /** POST /leads with a raw body and content type; checks afterwards that nothing was created. */
  async function postRaw(body: string, contentType?: string, key = a.key) {
    const before = (await listLeads(mesh, key)).length;
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (contentType) headers['content-type'] = contentType;
    // A Blob without a type makes fetch send no Content-Type at all.
    const response = await fetch(`${mesh.baseUrl}/leads`, { method: 'POST', headers, body: contentType ? body : new Blob([body]) });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const res = { status: response.status, headers: response.headers, text, body: parsed as any };
    const after = (await listLeads(mesh, key)).length;
    return { res, created: after - before };
  }

  describe('unknown routes', () => {
    it.each([
      ['GET', '/no-such-resource'],
      ['POST', '/no-such-resource'],
      ['GET', '/leads/lead_x/notes/extra'],
      ['PUT', '/leads'],
    ])('answer %s %s under the API root with 404 not_found', async (method, path) => {
      const res = await mesh.request(method, path, { key: a.key, body: method === 'POST' ? {} : undefined });
      expectApiError(res, 404, 'not_found');
      expectRateLimitHeaders(res);
    });

    it.each(['/', '/api/v2/leads', '/api/leads'])('answer %s outside the API root with 404 not_found and a Request-Id', async (path) => {
      const response = await fetch(`${mesh.baseUrl.replace(/\/api\/v1$/, '')}${path}`, { headers: { authorization: `Bearer ${a.key}` } });
      const text = await response.text();
      expectApiError({ status: response.status, headers: response.headers, text, body: JSON.parse(text) }, 404, 'not_found');
    });
  });

  describe('request bodies', () => {
    it('accepts application/json with a charset (the control for the 400s below)', async () => {
      const { res, created } = await postRaw(JSON.stringify({ full_name: 'Charset Lead' }), 'application/json; charset=utf-8');
      expect(res.status).toBe(201);
      expect(created).toBe(1);
    });

    it.each([
      ['a truncated object', '{"full_name": "Half'],
      ['a trailing comma', '{"full_name": "Comma",}'],
      ['single quotes', "{'full_name': 'Quotes'}"],
      ['two objects', '{"full_name": "One"}{"full_name": "Two"}'],
      ['a bare word', 'full_name'],
    ])('answers malformed JSON (%s) with 400 invalid_request and creates nothing', async (_label, body) => {
      const { res, created } = await postRaw(body, 'application/json');
      expectApiError(res, 400, 'invalid_request');
      expectRateLimitHeaders(res);
      expect(created).toBe(0);
    });

    it.each([
      ['text/plain', 'text/plain', JSON.stringify({ full_name: 'Plain Text' })],
      ['a form', 'application/x-www-form-urlencoded', 'full_name=Form+Lead'],
      ['multipart', 'multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="full_name"\r\n\r\nMultipart\r\n--xyz--\r\n'],
      ['XML', 'application/xml', '<lead><full_name>Xml</full_name></lead>'],
      ['no Content-Type', undefined, JSON.stringify({ full_name: 'No Content Type' })],
    ])('answers a body sent as %s with 400 invalid_request and creates nothing', async (_label, contentType, body) => {
      const { res, created } = await postRaw(body, contentType);
      expectApiError(res, 400, 'invalid_request');
      expect(created).toBe(0);
    });

    it.each([
      ['an array', '[{"full_name": "In Array"}]'],
      ['a string', '"full_name"'],
      ['a number', '42'],
    ])('answers a JSON body that is %s, not an object, with 400', async (_label, body) => {
      const { res, created } = await postRaw(body, 'application/json');
      expectApiError(res, 400, 'invalid_request');
      expect(created).toBe(0);
    });
  });

  describe('unknown body fields', () => {
    it.each(['nickname', 'livemode', 'id', 'workspace_id'])('POST /leads with the unknown field %p is 400 naming it, nothing created', async (field) => {
      const before = (await listLeads(mesh, a.key)).length;
      const res = await mesh.request('POST', '/leads', { key: a.key, body: { full_name: 'Extra Field', [field]: 'x' } });
      expectApiError(res, 400, 'invalid_request', field);
      expect((await listLeads(mesh, a.key)).length).toBe(before);
    });

    // Keys a JSON parser keeps but an object mapper may drop: they must be refused, never ignored.
    it.each([
      ['__proto__', '{"full_name": "Proto", "__proto__": {"admin": true}}'],
      ['constructor', '{"full_name": "Ctor", "constructor": {"prototype": {"admin": true}}}'],
      ['custom_fields.constructor', '{"full_name": "Custom Ctor", "custom_fields": {"constructor": "x"}}'],
    ])('POST /leads with the key %p is 400 naming it, nothing created', async (param, body) => {
      const { res, created } = await postRaw(body, 'application/json');
      expectApiError(res, 400, 'invalid_request', param);
      expect(created).toBe(0);
    });

    it('PATCH /leads/{id} with an unknown field is 400 naming it, the lead unchanged', async () => {
      const created = await mesh.request('POST', '/leads', { key: a.key, body: { full_name: 'Patch Target', title: 'Original' } });
      expect(created.status).toBe(201);
      const res = await mesh.request('PATCH', `/leads/${created.body.id}`, { key: a.key, body: { title: 'Changed', favourite_color: 'red' } });
      expectApiError(res, 400, 'invalid_request', 'favourite_color');
      const read = await mesh.request('GET', `/leads/${created.body.id}`, { key: a.key });
      expect(read.body.title).toBe('Original');
      expect(read.body.updated_at).toBe(created.body.updated_at);
    });
  });

  describe('objects of another workspace', () => {
    it('are 404 not_found for GET, PATCH and DELETE, exactly like ids that do not exist, and stay unchanged', async () => {
      const created = await mesh.request('POST', '/leads', { key: a.key, body: { full_name: 'Private Lead', title: 'Secret' } });
      expect(created.status).toBe(201);
      const id = created.body.id;
      const original = await mesh.request('GET', `/leads/${id}`, { key: a.key });
      expect(original.status).toBe(200);

      const missing = `lead_${'0'.repeat(24)}`;
      for (const [method, body] of [['GET'], ['PATCH', { title: 'Stolen' }], ['DELETE']] as [string, unknown?][]) {
        const foreign = await mesh.request(method, `/leads/${id}`, { key: b.key, body });
        expectApiError(foreign, 404, 'not_found');
        expect(foreign.text).not.toContain('Secret');
        expect(foreign.text).not.toContain('Private Lead');
        const absent = await mesh.request(method, `/leads/${missing}`, { key: b.key, body });
        expectApiError(absent, 404, 'not_found');
        expect(foreign.body.error.param).toBe(absent.body.error.param);
        expect(foreign.body.error.type).toBe(absent.body.error.type);
      }

      expect((await listLeads(mesh, b.key)).map((lead) => lead.id)).not.toContain(id);
      const after = await mesh.request('GET', `/leads/${id}`, { key: a.key });
      expect(after.status).toBe(200);
      expectRequestId(after);
      expect(after.text).toBe(original.text);
    });
  });
  /** A request sent with its path and query exactly as written (no client-side normalisation of `%`). */
  async function raw(method: string, pathAndQuery: string, key?: string, body?: string): Promise<ApiResponse> {
    const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${mesh.baseUrl}${pathAndQuery}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed as any };
  }

  // Spec, Errors: bad input is 400 naming the field (an id that cannot exist: 404), never a 500.
  describe('characters PostgreSQL cannot store', () => {
    let k: string;
    beforeAll(async () => {
      k = (await mesh.workspace()).key;
    });

    it.each([
      ['GET', '/companies/lead_%00'],
      ['DELETE', '/webhook_endpoints/lead_%00'],
      ['GET', '/leads/lead_%00x'],
      ['PATCH', '/leads/%00'],
      ['PATCH', '/tasks/task_%00'],
    ])('a NUL in the path id of %s %s is 404 not_found', async (method, path) => {
      const res = await raw(method, path, k, method === 'PATCH' ? '{"title":"x"}' : undefined);
      expectApiError(res, 404, 'not_found', 'id');
      expectRateLimitHeaders(res);
    });

    it.each([
      ['/leads?tag=%00', 'tag'],
      ['/leads?q=a%00b', 'q'],
      ['/tasks?status=open%00', 'status'],
      ['/companies?limit=1%00', 'limit'],
    ])('a NUL in the query (%s) is 400 invalid_request naming %s', async (path, param) => {
      expectApiError(await raw('GET', path, k), 400, 'invalid_request', param);
    });

    it.each([
      ['a NUL in a field', '{"full_name": "Nul\\u0000Lead"}', 'full_name'],
      ['a lone high surrogate', '{"full_name": "Lone \\ud800 surrogate"}', 'full_name'],
      ['a lone low surrogate in a tag', '{"full_name": "Low", "tags": ["ok", "x\\udc00"]}', 'tags.1'],
      ['a NUL in a custom field value', '{"full_name": "Custom", "custom_fields": {"tier": "a\\u0000"}}', 'custom_fields.tier'],
      ['a NUL in a custom field key', '{"full_name": "Custom Key", "custom_fields": {"ti\\u0000er": "a"}}', 'custom_fields.ti\u0000er'],
    ])('POST /leads with %s is 400 naming the field, nothing created', async (_label, body, param) => {
      const { res, created } = await postRaw(body, 'application/json', k);
      expectApiError(res, 400, 'invalid_request', param);
      expect(created).toBe(0);
    });

    it('a paired surrogate (an emoji) is stored and read back', async () => {
      const { res, created } = await postRaw('{"full_name": "Emoji \\ud83d\\ude00 Lead"}', 'application/json', k);
      expect(res.status).toBe(201);
      expect(res.body.full_name).toBe('Emoji \u{1F600} Lead');
      expect(created).toBe(1);
    });

    it('PATCH /leads/{id} with a NUL is 400 naming the field, the lead unchanged', async () => {
      const created = await mesh.request('POST', '/leads', { key: k, body: { full_name: 'Nul Patch', title: 'Before' } });
      const res = await raw('PATCH', `/leads/${created.body.id}`, k, '{"title": "After\\u0000"}');
      expectApiError(res, 400, 'invalid_request', 'title');
      expect((await mesh.request('GET', `/leads/${created.body.id}`, { key: k })).body.title).toBe('Before');
    });
  });

  // Spec, Limits: every request counts; Errors: one error format. A path whose percent-encoding
  // does not decode is still a request: authenticated, rate limited, answered with the error object.
  describe('malformed URLs', () => {
    let k: string;
    beforeAll(async () => {
      k = (await mesh.workspace()).key;
    });

    it.each(['/leads/%zz', '/leads/%', '/leads/%ff', '/lea%zzds'])('%s without a key is 401 with RateLimit-* headers, and counted', async (path) => {
      for (let attempt = 0; ; attempt++) {
        const first = await raw('GET', path);
        expectApiError(first, 401, 'authentication_failed');
        const before = expectRateLimitHeaders(first, 120);
        const second = await raw('GET', path);
        expectApiError(second, 401, 'authentication_failed');
        const after = expectRateLimitHeaders(second, 120);
        if (after.reset > before.reset && attempt < 2) continue; // a new window began in between
        expect(after.remaining).toBe(before.remaining - 1);
        break;
      }
    });

    it.each(['/leads/%zz', '/leads/lead_%ff%41', '/companies/%', '/lea%zzds'])('%s with a key is 400 invalid_request in the one error format, and counted', async (path) => {
      const first = await raw('GET', path, k);
      expectApiError(first, 400, 'invalid_request');
      const before = expectRateLimitHeaders(first);
      const second = await raw('GET', path, k);
      const after = expectRateLimitHeaders(second);
      if (after.reset <= before.reset) expect(after.remaining).toBe(before.remaining - 1);
    });
  });

  describe('requests the HTTP parser refuses', () => {
    it('a request line and headers past the server\'s limit are 400 invalid_request in the one error format, with a Request-Id', async () => {
      const res = await raw('GET', `/leads?limit=${'9'.repeat(20_000)}`, a.key);
      expectApiError(res, 400, 'invalid_request');
      expectRequestId(res);
      expect(res.headers.get('connection')).toBe('close');
      // the gateway goes on answering
      expect((await raw('GET', '/leads', a.key)).status).toBe(200);
    });
  });

  // decisions.md: unknown query parameters are rejected like unknown body fields, on every route.
  describe('unknown query parameters', () => {
    let k: string;
    beforeAll(async () => {
      k = (await mesh.workspace()).key;
    });

    it('are 400 naming the parameter on routes without query parameters and on those with some', async () => {
      const lead = await mesh.request('POST', '/leads', { key: k, body: { full_name: 'Query Target' } });
      expect((await mesh.request('GET', `/leads/${lead.body.id}`, { key: k })).status).toBe(200);
      expectApiError(await mesh.request('GET', `/leads/${lead.body.id}?x=1`, { key: k }), 400, 'invalid_request', 'x');
      expectApiError(await mesh.request('GET', '/credits?x=1', { key: k }), 400, 'invalid_request', 'x');
      expectApiError(await mesh.request('GET', '/pipelines?expand=stages', { key: k }), 400, 'invalid_request', 'expand');
      expectApiError(await mesh.request('DELETE', `/leads/${lead.body.id}?force=true`, { key: k }), 400, 'invalid_request', 'force');
      expectApiError(await mesh.request('PATCH', `/leads/${lead.body.id}?notify=1`, { key: k, body: { title: 'x' } }), 400, 'invalid_request', 'notify');
      expectApiError(await mesh.request('GET', '/leads?limit=1&sort=name', { key: k }), 400, 'invalid_request', 'sort');
      expect((await mesh.request('GET', `/leads/${lead.body.id}`, { key: k })).body.title).toBeNull();
      expect((await mesh.request('GET', '/leads?limit=1', { key: k })).status).toBe(200);
    });
  });

  // Spec, Errors: `doc_url` links the explanation of the code, anchored by code.
  describe('error.doc_url', () => {
    let k: string;
    beforeAll(async () => {
      k = (await mesh.workspace()).key;
    });

    it('links a served page with one anchor per error code, saying what it means, what to do and whether to retry', async () => {
      const page = await fetch(`${mesh.baseUrl}/docs/errors`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.headers.get('request-id')).toMatch(/\S/);
      const html = await page.text();
      for (const code of Object.values(ERROR_CODES)) {
        const section = new RegExp(`<section id="${code}">([\\s\\S]*?)</section>`).exec(html);
        expect({ code, found: Boolean(section) }).toEqual({ code, found: true });
        expect(section![1]).toMatch(/What it means[\s\S]*What to do[\s\S]*Retry\?/);
      }
    });

    it('every error the gateway answers links that page by default, at the anchor of its code', async () => {
      const answers = [
        await mesh.request('GET', '/leads?limit=0', { key: k }),
        await mesh.request('GET', '/leads'),
        await mesh.request('GET', '/leads/lead_missing', { key: k }),
        await mesh.request('POST', '/leads', { key: k, body: { full_name: 'Dup', email: 'dup-doc@example.com' } }).then(() =>
          mesh.request('POST', '/leads', { key: k, body: { full_name: 'Dup', email: 'dup-doc@example.com' } })),
        await mesh.request('GET', '/search?lens=leads', { key: (await mesh.workspace({ plan: 'growth' })).key }),
      ];
      expect(answers.map((r) => r.status)).toEqual([400, 401, 404, 409, 403]);
      const html = await (await fetch(`${mesh.baseUrl}/docs/errors`)).text();
      for (const res of answers) {
        const url = new URL(res.body.error.doc_url);
        expect(`${url.origin}${url.pathname}`).toBe(`${mesh.baseUrl}/docs/errors`);
        expect(url.hash).toBe(`#${res.body.error.code}`);
        const served = await fetch(url);
        expect(served.status).toBe(200);
        expect(html).toContain(`id="${url.hash.slice(1)}"`);
      }
    });
  });
});
