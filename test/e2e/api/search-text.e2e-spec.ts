import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../../../tools/mesh/processes';
import { TestMesh, meshHookTimeoutMs } from '../../harness';
import { allowance } from '../../support/timing';

/**
 * Free text (`q`) matches what the spec says, "names, topics, domains, programs": every connector's
 * entities are found by their topics, keywords, sectors, programs, agencies and mechanisms, not only
 * by name and organization. Each provider file is written here in the provider's own format and
 * read by `ingest`, as an operator would.
 */
describe('free text over ingested entities', () => {
  let mesh: TestMesh;
  let key: string;
  let dir: string;

  const ingest = async (provider: string, file: string, content: unknown) => {
    const path = join(dir, file);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    const result = await mesh.admin('ingest', '--provider', provider, '--file', path);
    expect(result.inserted).toBe(result.records);
  };
  /** Names of the hits for `q` in the lens (page 1). */
  const find = async (lens: string, q: string): Promise<string[]> => {
    const res = await mesh.request('GET', `/search?lens=${lens}&q=${encodeURIComponent(q)}`, { key });
    expect(res.status).toBe(200);
    return res.body.data.map((hit: any) => hit.name);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'search-text-'));
    mesh = await TestMesh.start(['gateway', 'billing', 'search']);
    const workspace = await mesh.createWorkspace({ name: 'text', planCredits: 500 });
    key = (await mesh.key(workspace.id, 'live')).key;
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).length === 1, allowance(10_000));
  }, meshHookTimeoutMs(3));
  afterAll(async () => {
    await mesh?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('OpenAlex: authors by their topics (and the topics subfield and field), institutions by topics and acronym', async () => {
    await ingest('openalex', 'authors.json', {
      results: [{
        id: 'https://openalex.org/A9000000001', display_name: 'Ottilie Brandvold', display_name_alternatives: ['O. Brandvold-Hess'], works_count: 41,
        last_known_institutions: [{ display_name: 'University of Nowhere', country_code: 'NO' }],
        topics: [{ display_name: 'Zebrafish Cardiac Regeneration', subfield: { display_name: 'Cardiology and Cardiovascular Medicine' }, field: { display_name: 'Medicine' } }],
      }],
    });
    await ingest('openalex', 'institutions.json', {
      results: [{ id: 'https://openalex.org/I9000000002', display_name: 'Hollowmere Institute', display_name_acronyms: ['HMI'], homepage_url: 'https://hollowmere.test', country_code: 'DK', works_count: 900, topics: [{ display_name: 'Permafrost Carbon Dynamics' }] }],
    });
    expect(await find('researchers', 'zebrafish regeneration')).toEqual(['Ottilie Brandvold']);
    expect(await find('researchers', 'cardiovascular')).toEqual(['Ottilie Brandvold']);
    expect(await find('researchers', 'Brandvold-Hess')).toEqual(['Ottilie Brandvold']);
    expect(await find('researchers', 'permafrost')).toEqual(['Hollowmere Institute']);
    expect(await find('researchers', 'HMI')).toEqual(['Hollowmere Institute']);
    expect(await find('researchers', 'hollowmere.test')).toEqual(['Hollowmere Institute']);
  });

  it('ORCID: researchers by their keywords and department', async () => {
    await ingest('orcid', 'orcid.json', {
      'orcid-identifier': { path: '0000-0009-0000-0001' },
      person: { name: { 'given-names': { value: 'Leontyne' }, 'family-name': { value: 'Quarrie' } }, keywords: { keyword: [{ content: 'tribology' }, { content: 'granular lubrication' }] } },
      'activities-summary': { employments: { 'affiliation-group': [{ summaries: [{ 'employment-summary': { 'department-name': 'Mechanical Sciences', 'role-title': 'Lecturer', organization: { name: 'Fenwick College' } } }] }] } },
    });
    expect(await find('researchers', 'tribology')).toEqual(['Leontyne Quarrie']);
    expect(await find('researchers', 'granular lubrication')).toEqual(['Leontyne Quarrie']);
    expect(await find('researchers', 'mechanical sciences')).toEqual(['Leontyne Quarrie']);
    expect(await find('researchers', 'tribology astrophysics')).toEqual([]);
  });

  it('SEC Form D: the fund and its people by the offering industry group and fund type', async () => {
    await ingest('sec_edgar', 'form-d.xml', `<?xml version="1.0"?><edgarSubmission><primaryIssuer><cik>0009990001</cik>
      <entityName>Quillmoor Partners III, L.P.</entityName><issuerAddress><city>Austin</city><stateOrCountry>TX</stateOrCountry></issuerAddress></primaryIssuer>
      <relatedPersonsList><relatedPersonInfo><relatedPersonName><firstName>Imre</firstName><lastName>Szalai</lastName></relatedPersonName>
      <relatedPersonRelationshipList><relationship>Executive Officer</relationship></relatedPersonRelationshipList></relatedPersonInfo></relatedPersonsList>
      <offeringData><industryGroup><industryGroupType>Pooled Investment Fund</industryGroupType><investmentFundInfo><investmentFundType>Venture Capital Fund</investmentFundType></investmentFundInfo></industryGroup>
      <minimumInvestmentAccepted>100000</minimumInvestmentAccepted><offeringSalesAmounts><totalOfferingAmount>20000000</totalOfferingAmount></offeringSalesAmounts></offeringData></edgarSubmission>`);
    expect((await find('investors', 'venture capital')).sort()).toEqual(['Imre Szalai (Quillmoor Partners III, L.P.)', 'Quillmoor Partners III, L.P.']);
    expect((await find('investors', 'pooled investment fund')).sort()).toEqual(['Imre Szalai (Quillmoor Partners III, L.P.)', 'Quillmoor Partners III, L.P.']);
  });

  it('NIH RePORTER: projects by institute, mechanism and thesaurus terms', async () => {
    await ingest('nih_reporter', 'nih.json', {
      results: [{
        appl_id: 99000001, project_num: '1R01AG990001-01', project_title: 'Muscle loss in late life', activity_code: 'R01', award_amount: 400000,
        agency_ic_admin: { abbreviation: 'NIA', name: 'National Institute on Aging' }, project_end_date: '2029-05-31T00:00:00Z',
        organization: { org_name: 'DUNMORE UNIVERSITY', org_city: 'DUNMORE', org_state: 'PA' },
        principal_investigators: [{ first_name: 'Greta', last_name: 'Holmqvist', is_contact_pi: true }],
        pref_terms: 'Sarcopenia;Myokines;Resistance Training', spending_categories_desc: 'Aging; Musculoskeletal',
      }],
    });
    for (const q of ['sarcopenia', 'myokines', 'musculoskeletal', 'institute on aging', 'NIA', 'R01', 'NIH']) expect([q, await find('grants', q)]).toEqual([q, ['Muscle loss in late life']]);
  });

  it('NSF awards: by program, mechanism, agency and division', async () => {
    await ingest('nsf_awards', 'nsf.json', {
      response: { award: [{
        id: '2599001', agency: 'NSF', title: 'Fault-tolerant control of microgrids', fundProgramName: 'Cyber-Physical Systems', transType: 'Continuing Grant',
        estimatedTotalAmt: '750000', expDate: '06/30/2029', piFirstName: 'Tomasz', piLastName: 'Wrenfield', awardeeName: 'Calder Institute of Technology',
        dirAbbr: 'CSE', divAbbr: 'CNS', orgLongName2: 'Division Of Computer and Network Systems',
      }] },
    });
    for (const q of ['cyber-physical', 'continuing grant', 'NSF', 'network systems', 'CNS']) expect([q, await find('grants', q)]).toEqual([q, ['Fault-tolerant control of microgrids']]);
  });

  it('Grants.gov: opportunities by agency, assistance listing (program), instrument and category', async () => {
    await ingest('grants_gov', 'grants.xml', `<?xml version="1.0" encoding="UTF-8"?><Grants>
      <OpportunitySynopsisDetail_1_0><OpportunityID>399001</OpportunityID><OpportunityTitle>Orchard Pollinator Habitat Awards</OpportunityTitle>
      <OpportunityNumber>USDA-NIFA-99-001</OpportunityNumber><FundingInstrumentType>CA</FundingInstrumentType><CategoryOfFundingActivity>AG</CategoryOfFundingActivity>
      <CategoryOfFundingActivity>ENV</CategoryOfFundingActivity><CFDANumbers>10.310</CFDANumbers><AgencyCode>USDA-NIFA</AgencyCode>
      <AgencyName>National Institute of Food and Agriculture</AgencyName><CloseDate>04302027</CloseDate><AwardCeiling>250000</AwardCeiling></OpportunitySynopsisDetail_1_0></Grants>`);
    for (const q of ['USDA', 'NIFA', '10.310', 'cooperative agreement', 'agriculture', 'environment']) expect([q, await find('grants', q)]).toEqual([q, ['Orchard Pollinator Habitat Awards']]);
  });

  it('OpenCorporates: companies by every industry listed and former names', async () => {
    await ingest('opencorporates', 'companies.json', {
      results: { companies: [{ company: {
        name: 'TARNWICK WORKS LIMITED', company_number: '99000001', jurisdiction_code: 'gb', registered_address: { country_code: 'GB' },
        industry_codes: [{ industry_code: { description: 'Manufacture of bicycles' } }, { industry_code: { description: 'Repair of other equipment' } }],
        previous_names: [{ company_name: 'SPOKEWRIGHT CYCLES LIMITED' }], officers: [],
      } }] },
    });
    for (const q of ['bicycles', 'repair equipment', 'spokewright']) expect([q, await find('leads', q)]).toEqual([q, ['TARNWICK WORKS LIMITED']]);
  });

  it('every entity written is searchable by exactly its words and facets', async () => {
    const terms = await mesh.query('search', `SELECT count(*)::int AS n, count(*) FILTER (WHERE terms IS DISTINCT FROM
      strip(to_tsvector('simple', search_text)) || array_to_tsvector(ARRAY(SELECT 'F:' || f FROM unnest(facets) AS f WHERE f IS NOT NULL)))::int AS wrong FROM entities`);
    expect(terms[0]).toEqual({ n: 9, wrong: 0 });
  });
});
