import { TestMesh } from '../harness';
import { expectApiError, expectRateLimitHeaders, expectRequestId, listLeads } from './gateway-assertions';

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
    mesh = await TestMesh.start(['gateway', 'crm']);
    [a, b] = await Promise.all([mesh.workspace(), mesh.workspace()]);
  });
  afterAll(() => mesh?.close());

  /** POST /leads with a raw body and content type; checks afterwards that nothing was created. */
  async function postRaw(body: string, contentType?: string) {
    const before = (await listLeads(mesh, a.key)).length;
    const headers: Record<string, string> = { authorization: `Bearer ${a.key}` };
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
    const after = (await listLeads(mesh, a.key)).length;
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
});
