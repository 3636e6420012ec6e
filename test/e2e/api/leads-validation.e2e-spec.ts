import { TestMesh } from '../../harness';
import { expectApiError, storedLeadCount } from '../../support/gateway-assertions';

/**
 * Every field rule of POST /leads (spec: Leads, Limits) through the gateway: a 400
 * `invalid_request` naming the field, and nothing created.
 */
describe('POST /leads validation', () => {
  let mesh: TestMesh;
  let key: string;
  let workspaceId: string;

  const s = (n: number) => 'x'.repeat(n);
  const tags = (n: number) => Array.from({ length: n }, (_, i) => `tag-${i}`);
  const ok = { full_name: 'Acme Fund' };

  beforeAll(async () => {
    mesh = await TestMesh.shared(['gateway', 'crm']);
    const ws = await mesh.workspace();
    key = ws.key;
    workspaceId = ws.workspace.id;
  });
  afterAll(() => mesh?.close());

  describe('rejected with 400 invalid_request naming the field', () => {
    it.each<[string, unknown, string]>([
      // lens enum
      ['lens not in the enum', { ...ok, lens: 'people' }, 'lens'],
      ['lens in another case', { ...ok, lens: 'Leads' }, 'lens'],
      ['lens not a string', { ...ok, lens: 1 }, 'lens'],
      // names and lengths
      ['first_name of 121 characters', { first_name: s(121), last_name: 'L' }, 'first_name'],
      ['last_name of 121 characters', { first_name: 'F', last_name: s(121) }, 'last_name'],
      ['full_name of 241 characters', { full_name: s(241) }, 'full_name'],
      ['full_name of 241 characters next to a first_name', { first_name: 'Ada', full_name: s(241) }, 'full_name'],
      ['title of 201 characters', { ...ok, title: s(201) }, 'title'],
      // full_name required when first and last name are empty
      ['no name at all', { title: 'Partner', email: 'partner@example.com' }, 'full_name'],
      ['an empty body', {}, 'full_name'],
      ['empty first and last name', { first_name: '', last_name: '' }, 'full_name'],
      ['blank first and last name', { first_name: ' ', last_name: '\t' }, 'full_name'],
      ['a blank full_name', { full_name: '   ' }, 'full_name'],
      // email syntax
      ['email without @', { ...ok, email: 'ada.example.com' }, 'email'],
      ['email with two @', { ...ok, email: 'ada@@example.com' }, 'email'],
      ['email without a domain', { ...ok, email: 'ada@' }, 'email'],
      ['email with a space', { ...ok, email: 'ada lovelace@example.com' }, 'email'],
      // phone (normalised by crm with a phone library)
      ['phone of letters', { ...ok, phone: 'call me maybe' }, 'phone'],
      ['phone too short', { ...ok, phone: '+1 555' }, 'phone'],
      ['phone with an unassigned country code', { ...ok, phone: '+999 123 456' }, 'phone'],
      ['national phone without a country', { ...ok, phone: '202 456 1111' }, 'phone'],
      // uris
      ['website not a URI', { ...ok, website: 'not a url' }, 'website'],
      ['website without a scheme', { ...ok, website: '://example.com' }, 'website'],
      ['source_url not a URI', { ...ok, source_url: 'somewhere on the web' }, 'source_url'],
      // country ISO 3166-1 alpha-2
      ['country not a code', { ...ok, country: 'XX' }, 'country'],
      ['country of 3 letters', { ...ok, country: 'USA' }, 'country'],
      ['country of 3 letters (alpha-3 of Germany)', { ...ok, country: 'DEU' }, 'country'],
      ['country of 1 letter', { ...ok, country: 'D' }, 'country'],
      ['country a name', { ...ok, country: 'Germany' }, 'country'],
      // lawful_basis enum
      ['lawful_basis not in the enum', { ...ok, lawful_basis: 'because' }, 'lawful_basis'],
      // tags
      ['21 tags', { ...ok, tags: tags(21) }, 'tags'],
      ['a tag that is not a string', { ...ok, tags: ['vip', 5] }, 'tags'],
      ['a tag that is an object', { ...ok, tags: [{ name: 'vip' }] }, 'tags'],
      ['tags as a string', { ...ok, tags: 'vip' }, 'tags'],
      // custom_fields
      ['custom_fields as a string', { ...ok, custom_fields: 'deal=1' }, 'custom_fields'],
      ['custom_fields as an array', { ...ok, custom_fields: [{ deal: 1 }] }, 'custom_fields'],
      ['custom_fields as a number', { ...ok, custom_fields: 7 }, 'custom_fields'],
      // wrong types
      ['first_name: 5', { first_name: 5 }, 'first_name'],
      ['first_name: 5 next to a full_name', { first_name: 5, full_name: 'Ada' }, 'first_name'],
      ['last_name: true', { last_name: true, full_name: 'Ada' }, 'last_name'],
      ['full_name: 5', { full_name: 5 }, 'full_name'],
      ['full_name: 5 next to a last_name', { last_name: 'Lovelace', full_name: 5 }, 'full_name'],
      ['full_name: an object', { full_name: { first: 'Ada' } }, 'full_name'],
      ['title: 5', { ...ok, title: 5 }, 'title'],
      ['email: 5', { ...ok, email: 5 }, 'email'],
      ['phone: a number', { ...ok, phone: 2024561111 }, 'phone'],
      ['website: 5', { ...ok, website: 5 }, 'website'],
      ['company_name: 5', { ...ok, company_name: 5 }, 'company_name'],
      ['company_domain not a domain', { ...ok, company_domain: 'not a domain' }, 'company_domain'],
      ['country: 49', { ...ok, country: 49 }, 'country'],
      ['lawful_basis: true', { ...ok, lawful_basis: true }, 'lawful_basis'],
      ['source_url: 5', { ...ok, source_url: 5 }, 'source_url'],
      // unknown fields
      ['an unknown field', { ...ok, favourite_color: 'blue' }, 'favourite_color'],
      ['a read-only field of the resource', { ...ok, id: 'lead_0000000000aaaaaaaaaaaaaa' }, 'id'],
      ['a field of PATCH only', { ...ok, owner_id: 'usr_x' }, 'owner_id'],
    ])('%s -> param %p', async (_label, body, param) => {
      const res = await mesh.request('POST', '/leads', { key, body });
      expectApiError(res, 400, 'invalid_request', param);
    });

    it('a body that is not an object is 400', async () => {
      const res = await mesh.request('POST', '/leads', { key, body: [{ full_name: 'x' }] });
      expectApiError(res, 400, 'invalid_request');
    });

    it('no rejected request created anything', async () => {
      expect(await storedLeadCount(mesh, workspaceId)).toBe(0);
      const list = await mesh.request('GET', '/leads', { key });
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([]);
      expect(await mesh.query('crm', 'SELECT name FROM tags WHERE workspace_id = $1', [workspaceId])).toEqual([]);
    });
  });

  describe('accepted at the limits', () => {
    let key2: string;
    beforeAll(async () => {
      key2 = (await mesh.workspace()).key;
    });

    it.each<[string, Record<string, unknown>]>([
      ['first_name and last_name of 120, title of 200', { first_name: s(120), last_name: 'y'.repeat(120), title: s(200) }],
      ['full_name of 240', { full_name: s(240) }],
      ['full_name of 240 next to names', { first_name: 'Ada', last_name: 'Lovelace', full_name: 'z'.repeat(240) }],
      ['20 tags', { ...ok, tags: tags(20) }],
      ['first_name only', { first_name: 'Ada' }],
      ['last_name only', { last_name: 'Lovelace' }],
    ])('%s -> 201', async (_label, body) => {
      const res = await mesh.request('POST', '/leads', { key: key2, body });
      expect({ status: res.status, text: res.text }).toEqual({ status: 201, text: expect.any(String) });
      for (const [field, value] of Object.entries(body)) expect(res.body[field]).toEqual(value);
      expect(res.body.full_name).toEqual(expect.stringMatching(/\S/));
    });

    it.each([
      ['+1 202 456 1111', undefined, '+12024561111'],
      ['+1 (202) 456-1111', undefined, '+12024561111'],
      ['+44 20 7946 0958', undefined, '+442079460958'],
      ['+44 20 7946 0958', 'US', '+442079460958'],
      ['(202) 456-1111', 'US', '+12024561111'],
      ['020 7946 0958', 'GB', '+442079460958'],
      ['0176 12345678', 'DE', '+4917612345678'],
    ])('phone %p (country %p) is stored as E.164 %p', async (phone, country, expected) => {
      const res = await mesh.request('POST', '/leads', { key: key2, body: { ...ok, phone, ...(country ? { country } : {}) } });
      expect({ status: res.status, text: res.text }).toEqual({ status: 201, text: expect.any(String) });
      expect(res.body.phone).toBe(expected);
      expect((await mesh.request('GET', `/leads/${res.body.id}`, { key: key2 })).body.phone).toBe(expected);
    });

    it.each(['GB', 'DE', 'US', 'JP', 'BR'])('country %p is accepted and kept', async (country) => {
      const res = await mesh.request('POST', '/leads', { key: key2, body: { ...ok, country } });
      expect(res.status).toBe(201);
      expect(res.body.country).toBe(country);
    });

    it.each(['leads', 'investors', 'researchers', 'grants'])('lens %p is accepted', async (lens) => {
      const res = await mesh.request('POST', '/leads', { key: key2, body: { ...ok, lens } });
      expect(res.status).toBe(201);
      expect(res.body.lens).toBe(lens);
    });

    it.each(['legitimate_interest', 'consent', 'contract'])('lawful_basis %p is accepted', async (basis) => {
      const res = await mesh.request('POST', '/leads', { key: key2, body: { ...ok, lawful_basis: basis } });
      expect(res.status).toBe(201);
      expect(res.body.lawful_basis).toBe(basis);
    });
  });
});
