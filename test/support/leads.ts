import { TestMesh } from '../harness';
import { expectRealSources } from './sources';

/** Helpers of the lead end-to-end tests: the Lead resource of the spec, create and list calls. */

export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const LENSES = ['leads', 'investors', 'researchers', 'grants'];

/** The Lead resource: every required field, the types of the optional ones, `sources` when expected. */
export function expectLead(lead: any, withSources: boolean): void {
  expect(lead.id).toMatch(/^lead_/);
  expect(lead.id.length).toBeLessThanOrEqual(255);
  expect(lead.object).toBe('lead');
  expect(LENSES).toContain(lead.lens);
  expect(lead.full_name).toEqual(expect.stringMatching(/\S/));
  for (const field of ['first_name', 'last_name', 'title', 'phone', 'website', 'company_id', 'company_name', 'country', 'owner_id']) {
    if (lead[field] !== undefined && lead[field] !== null) expect({ field, type: typeof lead[field] }).toEqual({ field, type: 'string' });
  }
  expect(lead).toHaveProperty('email');
  expect(lead.email === null || typeof lead.email === 'string').toBe(true);
  expect(lead).toHaveProperty('email_status');
  expect([null, 'valid', 'invalid', 'catch_all', 'risky', 'unknown']).toContain(lead.email_status);
  if (lead.phone) expect(lead.phone).toMatch(/^\+[1-9]\d{1,14}$/);
  if (lead.company_id) expect(lead.company_id).toMatch(/^co_/);
  if (lead.country) expect(lead.country).toMatch(/^[A-Z]{2}$/);
  expect(typeof lead.revealed).toBe('boolean');
  expect(['legitimate_interest', 'consent', 'contract']).toContain(lead.lawful_basis);
  expect(Array.isArray(lead.tags)).toBe(true);
  for (const tag of lead.tags) expect(typeof tag).toBe('string');
  expect(lead).toHaveProperty('stage');
  if (lead.stage !== null) {
    expect(lead.stage).toEqual({ pipeline_id: expect.any(String), stage_id: expect.any(String), name: expect.any(String) });
  }
  if (lead.custom_fields !== undefined) expect(lead.custom_fields).toEqual(expect.any(Object));
  expect(lead.created_at).toMatch(ISO_DATE_TIME);
  expect(lead.updated_at).toMatch(ISO_DATE_TIME);
  if (withSources) {
    expect(Array.isArray(lead.sources)).toBe(true);
    for (const source of lead.sources) {
      expect(source).toEqual({
        field: expect.any(String), value: expect.any(String), source_url: expect.any(String),
        provider: expect.any(String), fetched_at: expect.stringMatching(ISO_DATE_TIME),
      });
    }
    expectRealSources(lead.sources);
  } else {
    expect(lead).not.toHaveProperty('sources');
  }
}

/** POST /leads that must succeed: the 201 body. */
export async function createLead(mesh: TestMesh, key: string, body: object): Promise<any> {
  const res = await mesh.request('POST', '/leads', { key, body });
  expect({ status: res.status, text: res.text }).toEqual({ status: 201, text: expect.any(String) });
  return res.body;
}

/** GET /leads that must succeed: the list envelope, checked. */
export async function listPage(mesh: TestMesh, key: string, query = ''): Promise<any> {
  const res = await mesh.request('GET', `/leads${query ? `?${query}` : ''}`, { key });
  expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: expect.any(String) });
  expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor', 'object']);
  expect(res.body).toMatchObject({ object: 'list', data: expect.any(Array), has_more: expect.any(Boolean) });
  expect(res.body.next_cursor === null || typeof res.body.next_cursor === 'string').toBe(true);
  return res.body;
}

export const idsOf = (leads: any[]): string[] => leads.map((l) => l.id);
