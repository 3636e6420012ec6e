import { TestMesh } from '../../harness';
import { EventStreamReader } from '../../support/event-stream';
import { createLead, expectLead, idsOf, ISO_DATE_TIME, listPage } from '../../support/leads';
import { expectApiError } from '../../support/gateway-assertions';

/** PATCH /leads/{id} (with its lead.updated event) and DELETE /leads/{id} through the gateway. */
describe('leads end to end: update and delete', () => {
  let mesh: TestMesh;
  let events: EventStreamReader;
  let key: string;
  let workspaceId: string;
  let stranger: Awaited<ReturnType<TestMesh['workspace']>>;
  let members: { member: string; admin: string; foreign: string };

  beforeAll(async () => {
    mesh = await TestMesh.shared(['gateway', 'crm']);
    events = new EventStreamReader(await mesh.natsClient(), mesh.eventsAfter);
    const [own, other] = await Promise.all([mesh.workspace(), mesh.workspace()]);
    key = own.key;
    workspaceId = own.workspace.id;
    stranger = other;
    const [member, admin, foreign] = await Promise.all([
      mesh.admin('member:add', '--workspace', workspaceId, '--role', 'member'),
      mesh.admin('member:add', '--workspace', workspaceId, '--role', 'admin'),
      mesh.admin('member:add', '--workspace', other.workspace.id, '--role', 'member'),
    ]);
    members = { member: member.id, admin: admin.id, foreign: foreign.id };
  });
  afterAll(() => mesh?.close());

  describe('PATCH /leads/{id}', () => {
    let base: any;
    beforeAll(async () => {
      base = await createLead(mesh, key, {
        first_name: 'Hedy', last_name: 'Lamarr', title: 'Inventor', email: 'hedy@example.com', phone: '(202) 456-1111',
        website: 'https://hedy.example', country: 'US', lawful_basis: 'consent', tags: ['radio'],
        custom_fields: { deal_size: 10, note: 'warm', active: true }, source_url: 'https://example.com/hedy',
      });
    });

    const patch = (id: string, body: unknown) => mesh.request('PATCH', `/leads/${id}`, { key, body });
    const current = async () => (await mesh.request('GET', `/leads/${base.id}`, { key })).body;
    const without = (lead: any, ...fields: string[]) => {
      const copy = { ...lead };
      for (const f of ['updated_at', ...fields]) delete copy[f];
      return copy;
    };

    it('changes only the fields sent', async () => {
      const before = await current();
      const res = await patch(base.id, { title: 'Chief Inventor' });
      expect(res.status).toBe(200);
      expectLead(res.body, true);
      expect(res.body.title).toBe('Chief Inventor');
      expect(without(res.body, 'title')).toEqual(without(before, 'title'));
      expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
      expect(await current()).toEqual(res.body);
    });

    it('normalises a phone to E.164 (national numbers in the lead\'s country); an invalid phone is 400 phone', async () => {
      const res = await patch(base.id, { phone: '202.456.1111' });
      expect(res.status).toBe(200);
      expect(res.body.phone).toBe('+12024561111');
      const international = await patch(base.id, { phone: '+44 20 7946 0958' });
      expect(international.status).toBe(200);
      expect(international.body.phone).toBe('+442079460958');
      expectApiError(await patch(base.id, { phone: 'not a phone' }), 400, 'invalid_request', 'phone');
      expect((await current()).phone).toBe('+442079460958');
    });

    it('custom_fields merge: sent keys are set, null clears a key, the others stay', async () => {
      const res = await patch(base.id, { custom_fields: { note: null, region: 'EMEA', deal_size: 12 } });
      expect(res.status).toBe(200);
      expect(res.body.custom_fields).toEqual({ deal_size: 12, active: true, region: 'EMEA' });
      expect((await current()).custom_fields).toEqual({ deal_size: 12, active: true, region: 'EMEA' });
    });

    it('owner_id: a member of the workspace is assigned; null unassigns', async () => {
      const assigned = await patch(base.id, { owner_id: members.member });
      expect(assigned.status).toBe(200);
      expect(assigned.body.owner_id).toBe(members.member);
      expect((await current()).owner_id).toBe(members.member);
      const cleared = await patch(base.id, { owner_id: null });
      expect(cleared.status).toBe(200);
      expect(cleared.body.owner_id).toBeNull();
    });

    it.each([
      ['an unknown member', () => 'usr_0000000000nobodynobodyno'],
      ['a member of another workspace', () => members.foreign],
    ])('owner_id of %s is 404 on owner_id, and nothing changes', async (_label, owner) => {
      const before = await current();
      expectApiError(await patch(base.id, { owner_id: owner(), title: 'Should not stick' }), 404, 'not_found', 'owner_id');
      expect(await current()).toEqual(before);
    });

    it('null clears phone, website, country and owner_id; nothing else changes', async () => {
      expect((await patch(base.id, { owner_id: members.admin, country: 'GB', website: 'https://hedy.example/new' })).status).toBe(200);
      const before = await current();
      expect(before).toMatchObject({ owner_id: members.admin, country: 'GB', website: 'https://hedy.example/new' });
      expect(before.phone).not.toBeNull();
      const res = await patch(base.id, { phone: null, website: null, country: null, owner_id: null });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ phone: null, website: null, country: null, owner_id: null });
      const untouched = ['phone', 'website', 'country', 'owner_id'];
      expect(without(res.body, ...untouched)).toEqual(without(before, ...untouched));
      expect(await current()).toEqual(res.body);
    });

    it.each<[string, string, unknown]>([
      ['first_name null', 'first_name', { first_name: null }],
      ['last_name null', 'last_name', { last_name: null }],
      ['email (not a PATCH field)', 'email', { email: 'other@example.com' }],
      ['full_name (not a PATCH field)', 'full_name', { full_name: 'Renamed' }],
      ['tags (not a PATCH field)', 'tags', { tags: ['x'] }],
      ['an unknown field', 'favourite_color', { favourite_color: 'blue' }],
      ['first_name of 121 characters', 'first_name', { first_name: 'x'.repeat(121) }],
      ['title of 201 characters', 'title', { title: 'x'.repeat(201) }],
      ['country of 3 letters', 'country', { country: 'USA' }],
      ['website not a URI', 'website', { website: 'nope' }],
      ['lawful_basis not in the enum', 'lawful_basis', { lawful_basis: 'whim' }],
      ['custom_fields null', 'custom_fields', { custom_fields: null }],
      ['custom_fields an array', 'custom_fields', { custom_fields: ['x'] }],
      ['a valid field next to email', 'email', { title: 'Should not stick', email: 'other@example.com' }],
    ])('%s -> 400 param %p, nothing changed', async (_label, param, body) => {
      const before = await current();
      expectApiError(await patch(base.id, body), 400, 'invalid_request', param);
      expect(await current()).toEqual(before);
    });

    it('an unknown lead or one of another workspace is 404', async () => {
      expectApiError(await patch('lead_0000000000aaaaaaaaaaaaaa', { title: 'x' }), 404, 'not_found');
      const res = await mesh.request('PATCH', `/leads/${base.id}`, { key: stranger.key, body: { title: 'Hijacked' } });
      expectApiError(res, 404, 'not_found');
      expect((await current()).title).not.toBe('Hijacked');
    });

    it('emits lead.updated with the new lead and previous_attributes holding the old values', async () => {
      const before = await current();
      const res = await patch(base.id, { title: 'Actress', lawful_basis: 'contract', first_name: 'Hedwig' });
      expect(res.status).toBe(200);
      const { subject, envelope } = await events.waitFor(
        (e) => e.envelope.type === 'lead.updated' && e.envelope.data.object.id === base.id && e.envelope.data.object.title === 'Actress',
      );
      expect(subject).toBe('events.lead.updated');
      expect(envelope).toMatchObject({
        object: 'event', type: 'lead.updated', api_version: '2026-09-28', workspace_id: workspaceId, livemode: true,
      });
      expect(envelope.id).toMatch(/^evt_/);
      expect(envelope.created).toMatch(ISO_DATE_TIME);
      expect(envelope.data.object).toEqual(res.body);
      expect(envelope.data.previous_attributes).toMatchObject({ title: before.title, lawful_basis: 'consent', first_name: 'Hedy' });
      // only what changed
      expect(envelope.data.previous_attributes).not.toHaveProperty('email');
      expect(envelope.data.previous_attributes).not.toHaveProperty('last_name');
    });
  });

  describe('DELETE /leads/{id}', () => {
    it('returns the deletion envelope; afterwards GET, PATCH and DELETE are 404 and the list no longer has it', async () => {
      const keep = await createLead(mesh, key, { full_name: 'Keep Me' });
      const lead = await createLead(mesh, key, { full_name: 'Delete Me', email: 'gone@example.com' });

      expectApiError(await mesh.request('DELETE', `/leads/${lead.id}`, { key: stranger.key }), 404, 'not_found');
      expect((await mesh.request('GET', `/leads/${lead.id}`, { key })).status).toBe(200);

      const res = await mesh.request('DELETE', `/leads/${lead.id}`, { key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: lead.id, object: 'lead', deleted: true });

      expectApiError(await mesh.request('GET', `/leads/${lead.id}`, { key }), 404, 'not_found');
      expectApiError(await mesh.request('PATCH', `/leads/${lead.id}`, { key, body: { title: 'x' } }), 404, 'not_found');
      expectApiError(await mesh.request('DELETE', `/leads/${lead.id}`, { key }), 404, 'not_found');
      const remaining = idsOf((await listPage(mesh, key, 'limit=100')).data);
      expect(remaining).toContain(keep.id);
      expect(remaining).not.toContain(lead.id);

      // the address is free again
      const again = await createLead(mesh, key, { full_name: 'Back Again', email: 'gone@example.com' });
      expect(again.id).not.toBe(lead.id);
    });
  });
});
