import { SUBJECTS } from '@app/contracts/subjects';
import { parseProviderFile } from '../../../apps/admin/src/ingest/connectors';
import { TestMesh, meshHookTimeoutMs } from '../../harness';
import { createLead } from '../../support/leads';
import { expectRealSources } from '../../support/sources';
import { expectApiError } from '../../support/gateway-assertions';

const FETCHED = '2026-10-03T00:00:00.000Z';
/** Two OpenCorporates records as its API returns them: one with a website, one known by name only. */
const OPENCORPORATES = {
  api_version: '0.4',
  results: { companies: [
    { company: {
      name: 'NORTHWIND ANALYTICS LIMITED', company_number: '12345678', jurisdiction_code: 'gb', opencorporates_url: 'https://opencorporates.com/companies/gb/12345678',
      registered_address: { locality: 'London', country: 'England' }, website: 'http://www.northwind.example',
      industry_codes: [{ industry_code: { description: 'software' } }], officers: [],
    } },
    { company: {
      name: 'Blue Cedar Logistics, Inc.', company_number: 'C4123456', jurisdiction_code: 'us_ca', opencorporates_url: 'https://opencorporates.com/companies/us_ca/C4123456',
      registered_address: { locality: 'Oakland', country_code: 'US' }, industry_codes: [{ industry_code: { description: 'logistics' } }], officers: [],
    } },
  ] },
};

describe('companies', () => {
  let mesh: TestMesh;
  let key: string;
  let otherKey: string;
  let workspaceId: string;

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'crm', 'search']);
    const ingested = await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities: parseProviderFile('opencorporates', JSON.stringify(OPENCORPORATES), FETCHED) });
    expect(ingested.err).toBeUndefined();
    const [mine, other] = await Promise.all([mesh.workspace(), mesh.workspace()]);
    key = mine.key;
    workspaceId = mine.workspace.id;
    otherKey = other.key;
  }, meshHookTimeoutMs(3));
  afterAll(() => mesh?.close());

  const company = async (id: string, k = key) => {
    const res = await mesh.request('GET', `/companies/${id}`, { key: k });
    if (res.status === 200) expectRealSources(res.body.sources);
    return res;
  };

  it('matches leads to one company by normalised domain, with an exact lead_count', async () => {
    const a = await createLead(mesh, key, { full_name: 'A One', company_name: 'Acme Corp', company_domain: 'https://www.Acme.com/about', source_url: 'https://acme.com/team' });
    const b = await createLead(mesh, key, { full_name: 'B Two', company_domain: 'ACME.COM.' });
    const c = await createLead(mesh, key, { full_name: 'C Three', company_domain: 'http://acme.com:8080' });
    expect(a.company_id).toMatch(/^co_/);
    expect(b.company_id).toBe(a.company_id);
    expect(c.company_id).toBe(a.company_id);
    expect(b.company_name).toBe('Acme Corp');

    const res = await company(a.company_id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: a.company_id, object: 'company', name: 'Acme Corp', domain: 'acme.com', lead_count: 3 });
    for (const field of ['industry', 'size', 'country', 'city', 'description']) expect(res.body).toHaveProperty(field, null);
    expect(res.body.sources).toEqual([expect.objectContaining({ field: 'company_name', value: 'Acme Corp', provider: 'api', source_url: 'https://acme.com/team' })]);

    expect((await mesh.request('DELETE', `/leads/${b.id}`, { key })).status).toBe(200);
    expect((await company(a.company_id)).body.lead_count).toBe(2);
  });

  it('matches by name, case-insensitively, when no domain is given', async () => {
    const a = await createLead(mesh, key, { full_name: 'N One', company_name: 'Initech' });
    const b = await createLead(mesh, key, { full_name: 'N Two', company_name: 'INITECH' });
    expect(b.company_id).toBe(a.company_id);
    expect((await company(a.company_id)).body).toMatchObject({ name: 'Initech', domain: null, lead_count: 2 });
  });

  it('keeps lead_count exact under concurrent creates', async () => {
    const leads = await Promise.all(Array.from({ length: 15 }, (_, i) => createLead(mesh, key, { full_name: `Busy ${i}`, company_domain: 'busy.example' })));
    expect(new Set(leads.map((l) => l.company_id)).size).toBe(1);
    expect((await company(leads[0].company_id)).body.lead_count).toBe(15);
  });

  it('lists newest first with q on name or domain, country, and pagination', async () => {
    const globex = await createLead(mesh, key, { full_name: 'G', company_name: 'Globex', company_domain: 'globex.example', country: 'DE' });
    const all = await mesh.request('GET', '/companies', { key });
    expect(all.status).toBe(200);
    expect(all.body.object).toBe('list');
    const ids = all.body.data.map((c: any) => c.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(ids[0]).toBe(globex.company_id);

    expect((await mesh.request('GET', '/companies?q=GLOBEX', { key })).body.data.map((c: any) => c.id)).toEqual([globex.company_id]);
    expect((await mesh.request('GET', '/companies?q=globex.exa', { key })).body.data.map((c: any) => c.id)).toEqual([globex.company_id]);
    expect((await mesh.request('GET', '/companies?q=%25', { key })).body.data).toEqual([]);
    expect((await mesh.request('GET', '/companies?country=de', { key })).body.data.map((c: any) => c.id)).toEqual([globex.company_id]);

    const first = await mesh.request('GET', '/companies?limit=1', { key });
    expect(first.body).toMatchObject({ has_more: true });
    const second = await mesh.request('GET', `/companies?limit=1&starting_after=${first.body.next_cursor}`, { key });
    expect(second.body.data[0].id).toBe(ids[1]);
  });

  it('rejects bad filters with 400 naming them, and unknown or foreign ids with 404', async () => {
    expectApiError(await mesh.request('GET', '/companies?country=XYZ', { key }), 400, 'invalid_request', 'country');
    expectApiError(await mesh.request('GET', '/companies?limit=101', { key }), 400, 'invalid_request', 'limit');
    expectApiError(await mesh.request('GET', '/companies?starting_after=garbage', { key }), 400, 'invalid_request', 'starting_after');
    expectApiError(await mesh.request('GET', '/companies?industry=x', { key }), 400, 'invalid_request', 'industry');
    expectApiError(await company('co_unknown'), 404, 'not_found', 'id');
    const mine = await createLead(mesh, key, { full_name: 'Mine', company_domain: 'mine.example' });
    expectApiError(await company(mine.company_id, otherKey), 404, 'not_found', 'id');
    const [{ n }] = await mesh.query('crm', 'SELECT count(*)::int AS n FROM companies WHERE workspace_id = $1', [workspaceId]);
    expect(n).toBeGreaterThan(0);
  });

  it('a new company takes the matching OpenCorporates record\'s industry, country and city, each with its Source', async () => {
    const oc = 'https://opencorporates.com/companies/gb/12345678';
    // the lead says FR; the registry's GB outranks a caller's value
    const a = await createLead(mesh, key, { full_name: 'Nora West', company_name: 'Northwind', company_domain: 'northwind.example', country: 'FR', source_url: 'https://northwind.example/people' });
    const res = await company(a.company_id);
    expect(res.body).toMatchObject({ name: 'Northwind', domain: 'northwind.example', industry: 'software', size: null, country: 'GB', city: 'London', description: null });
    expect(res.body.sources).toEqual(expect.arrayContaining([
      { field: 'company_name', value: 'Northwind', provider: 'api', source_url: 'https://northwind.example/people', fetched_at: expect.any(String) },
      { field: 'industry', value: 'software', provider: 'opencorporates', source_url: oc, fetched_at: FETCHED },
      { field: 'country', value: 'GB', provider: 'opencorporates', source_url: oc, fetched_at: FETCHED },
      { field: 'city', value: 'London', provider: 'opencorporates', source_url: oc, fetched_at: FETCHED },
    ]));
    expect(res.body.sources.filter((s: any) => s.field === 'country')).toHaveLength(1);

    // known by name only: matched case-insensitively to the record with that name
    const b = await createLead(mesh, key, { full_name: 'Cy Dar', company_name: 'BLUE CEDAR LOGISTICS, INC.' });
    expect((await company(b.company_id)).body).toMatchObject({ industry: 'logistics', country: 'US', city: 'Oakland' });
  });

  it('a lead\'s country fills its company\'s; a later lead never blanks or overrides it', async () => {
    const first = await createLead(mesh, key, { full_name: 'U One', company_domain: 'umbra.example', country: 'de', source_url: 'https://umbra.example/about' });
    const backed = { field: 'country', value: 'DE', provider: 'api', source_url: 'https://umbra.example/about', fetched_at: expect.any(String) };
    expect((await company(first.company_id)).body).toMatchObject({ country: 'DE', sources: expect.arrayContaining([backed]) });
    await createLead(mesh, key, { full_name: 'U Two', company_domain: 'umbra.example' });
    await createLead(mesh, key, { full_name: 'U Three', company_domain: 'umbra.example', country: 'IT', source_url: 'https://umbra.example/it' });
    const after = (await company(first.company_id)).body;
    expect(after).toMatchObject({ country: 'DE', lead_count: 3 });
    expect(after.sources.filter((s: any) => s.field === 'country')).toEqual([backed]);
    const german = (await mesh.request('GET', '/companies?country=DE', { key })).body.data.map((c: any) => c.id);
    expect(german).toContain(first.company_id);
    expect((await mesh.request('GET', '/companies?country=IT', { key })).body.data).toEqual([]);
  });

  it('creates leads when search does not answer: the company starts with what the lead says', async () => {
    await mesh.stopApp('search');
    try {
      const lead = await createLead(mesh, key, { full_name: 'Off Line', company_domain: 'offline.example', country: 'NL' });
      expect((await company(lead.company_id)).body).toMatchObject({ domain: 'offline.example', country: 'NL', industry: null, sources: [] });
    } finally {
      await mesh.startApp('search');
    }
  });
});
