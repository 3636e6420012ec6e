import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// ajv 8 (JSON Schema 2020-12, as OpenAPI 3.1 uses) and ajv-formats come with fastify's validator.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { meshHookTimeoutMs, TestMesh } from '../harness';
import { gatewayDocument } from './openapi-document';

/**
 * Every route the running gateway's Fastify instance serves under /api/v1 is in the document it
 * serves at /api/v1/openapi.json, with its method. The routes come from the gateway itself: with
 * GATEWAY_ROUTE_LOG set, an onRoute hook writes each registered route to that file.
 */
describe('OpenAPI document served by the gateway', () => {
  let mesh: TestMesh;
  let dir: string;
  let routeLog: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-routes-'));
    routeLog = join(dir, 'routes.jsonl');
    mesh = await TestMesh.start(['gateway', 'crm'], { GATEWAY_ROUTE_LOG: routeLog });
  }, meshHookTimeoutMs(2));
  afterAll(async () => {
    await mesh?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const served = (): { method: string; url: string }[] =>
    readFileSync(routeLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line));

  it('lists every route the gateway serves under /api/v1, with its method', async () => {
    const res = await fetch(`${mesh.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const doc: any = await res.json();
    const routes = served().filter((r) => r.url.startsWith('/api/v1/') || r.url === '/api/v1');
    // Fastify adds a HEAD route beside each GET route (exposeHeadRoutes); HEAD is GET without a body.
    const getUrls = new Set(routes.filter((r) => r.method === 'GET').map((r) => r.url));
    const own = routes.filter((r) => !(r.method === 'HEAD' && getUrls.has(r.url)));
    expect(own.length).toBeGreaterThan(15);
    const missing = own
      .map((r) => ({ method: r.method.toLowerCase(), path: r.url.slice('/api/v1'.length).replace(/:([A-Za-z0-9_]+)/g, '{$1}') }))
      .filter(({ method, path }) => !doc.paths[path]?.[method])
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(missing).toEqual([]);
    // and nothing documented that is not served
    const servedKeys = new Set(own.map((r) => `${r.method} ${r.url.slice('/api/v1'.length).replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`));
    const documented = Object.entries<any>(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.filter((k) => !servedKeys.has(k))).toEqual([]);
    // the served document is the one the lint test checks, linking the error catalogue this gateway serves
    expect(doc).toEqual(JSON.parse(JSON.stringify(gatewayDocument(`${mesh.baseUrl}/docs/errors`))));
    expect(doc.externalDocs.url).toBe(`${mesh.baseUrl}/docs/errors`);
    const catalogue = await fetch(doc.externalDocs.url);
    expect(catalogue.status).toBe(200);
    expect(await catalogue.text()).toContain('id="not_found"');
  });

  it('real responses match the documented response schemas (lead, list, task, pipeline, company list, deletion, errors)', async () => {
    const doc: any = await (await fetch(`${mesh.baseUrl}/openapi.json`)).json();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const check = async (method: string, path: string, template: string, res: { status: number; body: unknown; headers: Headers }) => {
      const op = doc.paths[template][method.toLowerCase()];
      let response = op.responses[String(res.status)];
      expect({ path, status: res.status, documented: Boolean(response) }).toEqual({ path, status: res.status, documented: true });
      if (response.$ref) response = doc.components.responses[response.$ref.split('/').pop()];
      const schema = response.content['application/json'].schema;
      const validate = ajv.compile({ ...schema, components: doc.components });
      const ok = validate(res.body);
      expect({ method, path, errors: ok ? null : validate.errors }).toEqual({ method, path, errors: null });
      for (const name of Object.keys(response.headers ?? {})) {
        if (name !== 'Idempotent-Replayed' && name !== 'Retry-After') expect({ path, name, value: res.headers.get(name) }).toEqual({ path, name, value: expect.any(String) });
      }
    };
    const { key } = await mesh.workspace();
    const created = await mesh.request('POST', '/leads', {
      key, body: { full_name: 'Ada Lovelace', email: 'ada@example.com', tags: ['vip'], country: 'GB', source_url: 'https://example.com/ada', custom_fields: { tier: 1 } },
    });
    await check('POST', '/leads', '/leads', created);
    const id = created.body.id as string;
    await check('GET', `/leads/${id}`, '/leads/{id}', await mesh.request('GET', `/leads/${id}`, { key }));
    await check('PATCH', `/leads/${id}`, '/leads/{id}', await mesh.request('PATCH', `/leads/${id}`, { key, body: { title: 'Countess', phone: null } }));
    await check('GET', '/leads', '/leads', await mesh.request('GET', '/leads?limit=1', { key }));
    const pipelines = await mesh.request('GET', '/pipelines', { key });
    await check('GET', '/pipelines', '/pipelines', pipelines);
    const stage = pipelines.body.data[0]?.stages?.[1] ?? pipelines.body.data[0]?.stages?.[0];
    if (stage) await check('PUT', `/leads/${id}/stage`, '/leads/{id}/stage', await mesh.request('PUT', `/leads/${id}/stage`, { key, body: { stage_id: stage.id } }));
    await check('GET', '/companies', '/companies', await mesh.request('GET', '/companies', { key }));
    const task = await mesh.request('POST', '/tasks', { key, body: { title: 'Call back', lead_id: id, due_at: '2030-01-01T09:00:00Z' } });
    await check('POST', '/tasks', '/tasks', task);
    await check('PATCH', `/tasks/${task.body.id}`, '/tasks/{id}', await mesh.request('PATCH', `/tasks/${task.body.id}`, { key, body: { status: 'done' } }));
    await check('GET', '/tasks', '/tasks', await mesh.request('GET', '/tasks', { key }));
    const exported = await mesh.request('POST', '/exports', { key, body: { format: 'csv', filter: { tag: 'vip' } } });
    await check('POST', '/exports', '/exports', exported);
    await check('GET', `/exports/${exported.body.id}`, '/exports/{id}', await mesh.request('GET', `/exports/${exported.body.id}`, { key }));
    await check('DELETE', `/leads/${id}`, '/leads/{id}', await mesh.request('DELETE', `/leads/${id}`, { key }));
    await check('GET', `/leads/${id}`, '/leads/{id}', await mesh.request('GET', `/leads/${id}`, { key }));
    await check('GET', '/leads', '/leads', await mesh.request('GET', '/leads?limit=0', { key }));
    await check('GET', '/leads', '/leads', await mesh.request('GET', '/leads'));
  });

  it('serves the document and the reference page without an API key, with Request-Id; other routes still need one', async () => {
    const spec = await fetch(`${mesh.baseUrl}/openapi.json`);
    expect(spec.status).toBe(200);
    expect(spec.headers.get('request-id')).toMatch(/\S/);
    expect(spec.headers.get('ratelimit-limit')).toMatch(/^\d+$/);

    const page = await fetch(`${mesh.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('openapi.json');
    // self-contained: no script, style or font from another origin; the renderer is the gateway's own
    expect(html).not.toMatch(/<script[^>]+src="?(https?:)?\/\/|<link[^>]+href=|<img[^>]+src="?https?:|@import|url\(['"]?https?:/);
    const renderer = /<script[^>]+src="([^"]+)"/.exec(html)?.[1];
    expect(renderer).toBe('docs/redoc.standalone.js');
    const script = await fetch(new URL(renderer!, `${mesh.baseUrl}/docs`));
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);

    const withBadKey = await fetch(`${mesh.baseUrl}/openapi.json`, { headers: { Authorization: 'Bearer svc_test_nope' } });
    expect(withBadKey.status).toBe(200);
    for (const path of ['/leads', '/docs/x', '/openapi.json/x', '/openapi.yaml']) {
      const res = await fetch(`${mesh.baseUrl}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
    }
  });
});
