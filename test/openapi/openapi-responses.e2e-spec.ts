import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { SUBJECTS } from '@app/contracts/subjects';
import { SHARED_ALL_START_MS, TestMesh } from '../harness';
import { waitFor } from '../../tools/mesh/processes';
import { allowance } from '../support/timing';

/**
 * The response schemas of schemas.ts are written from the spec: real answers of every service
 * behind the gateway (search, reveals, credits, sequences, suppressions, webhook endpoints) must
 * validate against what /api/v1/openapi.json says, status included.
 */
describe('OpenAPI response schemas against the services', () => {
  let mesh: TestMesh;
  let doc: any;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);

  beforeAll(async () => {
    // WEBHOOK_ALLOWED_HOSTS and WEBHOOK_SECRET_KEY of SHARED_ALL_SETTINGS
    mesh = await TestMesh.sharedAll();
    doc = await (await fetch(`${mesh.baseUrl}/openapi.json`)).json();
  }, SHARED_ALL_START_MS);
  afterAll(() => mesh?.close());

  async function check(method: string, template: string, res: { status: number; body: unknown }): Promise<void> {
    const op = doc.paths[template]?.[method.toLowerCase()];
    expect({ template, method, documented: Boolean(op) }).toEqual({ template, method, documented: true });
    let response = op.responses[String(res.status)];
    expect({ template, status: res.status, body: response ? undefined : res.body }).toEqual({ template, status: res.status, body: undefined });
    if (response.$ref) response = doc.components.responses[response.$ref.split('/').pop()];
    const validate = ajv.compile({ ...response.content['application/json'].schema, components: doc.components });
    const ok = validate(res.body);
    expect({ method, template, errors: ok ? null : validate.errors, body: ok ? null : res.body }).toEqual({ method, template, errors: null, body: null });
  }

  it('search, reveal (test key), credits, sequences, suppressions and webhook endpoints answer as documented', async () => {
    const workspace = await mesh.createWorkspace({ name: 'openapi', planCredits: 100 });
    const live = (await mesh.key(workspace.id, 'live')).key as string;
    const test = (await mesh.key(workspace.id, 'test')).key as string;
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).length === 1, allowance(30_000));
    const sources = [{ field: 'name', value: 'x', provider: 'sec_edgar', source_url: 'https://www.sec.gov/x', fetched_at: '2026-11-01T00:00:00.000Z' }];
    const ingest = await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, {
      entities: [{
        ext_key: 't:openapi', lens: 'investors', name: 'Fund OpenAPI', person_name: 'Jane Roe', first_name: 'Jane', last_name: 'Roe',
        email: 'jane@fund.test', domain: 'fund.test', phone: '+14155550100', country: 'US', organization: 'Fund OpenAPI',
        details: { stages: ['seed'], sectors: ['fintech'], check_size_usd: { min: 1, max: 2 }, last_filing_at: '2026-01-01' }, facets: [], sources,
      }],
    });
    expect(ingest.err).toBeUndefined();

    await check('GET', '/credits', await mesh.request('GET', '/credits', { key: live }));
    const search = await mesh.request('GET', '/search?lens=investors&q=Fund', { key: live });
    await check('GET', '/search', search);
    const hit = search.body.data?.[0];
    expect(hit?.entity_id).toMatch(/^ent_/);
    await check('POST', '/reveals', await mesh.request('POST', '/reveals', { key: test, body: { entity_id: hit.entity_id } }));
    await check('GET', '/credits', await mesh.request('GET', '/credits', { key: live }));

    await check('GET', '/sequences', await mesh.request('GET', '/sequences', { key: live }));
    await check('GET', '/sequences/{id}', await mesh.request('GET', '/sequences/seq_missing', { key: live }));
    await check('POST', '/suppressions', await mesh.request('POST', '/suppressions', { key: live, body: { email: 'nobody@example.com', reason: 'unsubscribe' } }));
    await check('POST', '/suppressions', await mesh.request('POST', '/suppressions', { key: live, body: { domain: 'example.org' } }));
    await check('POST', '/suppressions', await mesh.request('POST', '/suppressions', { key: live, body: { email: 'a@example.com', domain: 'example.org' } }));
    await check('GET', '/suppressions', await mesh.request('GET', '/suppressions', { key: live }));

    const endpoint = await mesh.request('POST', '/webhook_endpoints', { key: live, body: { url: 'https://127.0.0.1:9/hook', events: ['lead.created'], description: 'docs' } });
    await check('POST', '/webhook_endpoints', endpoint);
    await check('GET', '/webhook_endpoints', await mesh.request('GET', '/webhook_endpoints', { key: live }));
    await check('DELETE', '/webhook_endpoints/{id}', await mesh.request('DELETE', `/webhook_endpoints/${endpoint.body.id}`, { key: live }));
  });
});
