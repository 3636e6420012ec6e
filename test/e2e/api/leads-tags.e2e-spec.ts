import { TestMesh } from '../../harness';
import { createLead, idsOf, listPage } from '../../support/leads';
import { expectApiError } from '../../support/gateway-assertions';

type Workspace = Awaited<ReturnType<TestMesh['workspace']>>;

/**
 * Tags (exact names, created when missing, also under concurrency) and custom fields (set and
 * cleared through PATCH): the cases the other lead tests leave out.
 */
describe('leads end to end: tags and custom fields', () => {
  let mesh: TestMesh;
  const ws: Record<'exact' | 'concurrent' | 'fields', Workspace> = {} as any;

  beforeAll(async () => {
    mesh = await TestMesh.shared(['gateway', 'crm']);
    await Promise.all((['exact', 'concurrent', 'fields'] as const).map(async (name) => {
      ws[name] = await mesh.workspace();
    }));
  });
  afterAll(() => mesh?.close());

  const tagRows = async (workspaceId: string) =>
    (await mesh.query<{ name: string }>('crm', 'SELECT name FROM tags WHERE workspace_id = $1 ORDER BY name COLLATE "C"', [workspaceId])).map((r) => r.name);

  describe('tags', () => {
    it('names are exact: VIP, vip and Vip are three tags, and ?tag= matches only its own spelling', async () => {
      const { key } = ws.exact;
      const upper = await createLead(mesh, key, { full_name: 'Upper', tags: ['VIP'] });
      const lower = await createLead(mesh, key, { full_name: 'Lower', tags: ['vip'] });
      const both = await createLead(mesh, key, { full_name: 'Both', tags: ['vip', 'VIP', 'café'] });
      expect(upper.tags).toEqual(['VIP']);
      expect(both.tags).toEqual(['vip', 'VIP', 'café']);
      expect(await tagRows(ws.exact.workspace.id)).toEqual(['VIP', 'café', 'vip']);

      expect(idsOf((await listPage(mesh, key, 'tag=vip')).data)).toEqual([both.id, lower.id]);
      expect(idsOf((await listPage(mesh, key, 'tag=VIP')).data)).toEqual([both.id, upper.id]);
      expect((await listPage(mesh, key, 'tag=Vip')).data).toEqual([]);
      expect(idsOf((await listPage(mesh, key, `tag=${encodeURIComponent('café')}`)).data)).toEqual([both.id]);
      expect((await listPage(mesh, key, 'tag=cafe')).data).toEqual([]);
    });

    it('a tag sent twice in one request is kept once', async () => {
      const lead = await createLead(mesh, ws.exact.key, { full_name: 'Twice', tags: ['repeat', 'repeat'] });
      expect(lead.tags).toEqual(['repeat']);
      expect((await tagRows(ws.exact.workspace.id)).filter((t) => t === 'repeat')).toHaveLength(1);
    });

    it.each([
      ['tag=a&tag=b', 'tag'],
      [`tag=${'t'.repeat(101)}`, 'tag'],
    ])('bad tag filter %s -> 400 param %p', async (query, param) => {
      expectApiError(await mesh.request('GET', `/leads?${query}`, { key: ws.exact.key }), 400, 'invalid_request', param);
    });

    it('20 concurrent creates with the same new tag all succeed and make one tag', async () => {
      const { key } = ws.concurrent;
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => mesh.request('POST', '/leads', { key, body: { full_name: `Rush ${i}`, tags: ['launch-week'] } })),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
      expect(await tagRows(ws.concurrent.workspace.id)).toEqual(['launch-week']);
      expect(idsOf((await listPage(mesh, key, 'tag=launch-week&limit=100')).data).sort()).toEqual(responses.map((r) => r.body.id).sort());
    });

    it('20 concurrent creates with the same new tags in different orders all succeed (no deadlock) and keep each order', async () => {
      const { key } = ws.concurrent;
      const names = ['alpha', 'beta', 'gamma'];
      const orders = Array.from({ length: 20 }, (_, i) => [...names.slice(i % 3), ...names.slice(0, i % 3)].reverse().slice(0, 2 + (i % 2)));
      const responses = await Promise.all(
        orders.map((tags, i) => mesh.request('POST', '/leads', { key, body: { full_name: `Order ${i}`, tags } })),
      );
      expect(responses.map((r) => `${r.status} ${r.status === 201 ? '' : r.text}`)).toEqual(Array(20).fill('201 '));
      expect(responses.map((r) => r.body.tags)).toEqual(orders);
      expect(await tagRows(ws.concurrent.workspace.id)).toEqual(['alpha', 'beta', 'gamma', 'launch-week']);
    });
  });

  describe('custom fields through PATCH', () => {
    let key: string;
    let lead: any;
    beforeAll(async () => {
      ({ key } = ws.fields);
      lead = await createLead(mesh, key, { full_name: 'Fielded', custom_fields: { plan: 'pro', seats: 12 } });
    });
    const patch = (body: unknown) => mesh.request('PATCH', `/leads/${lead.id}`, { key, body });
    const current = async () => (await mesh.request('GET', `/leads/${lead.id}`, { key })).body;
    const updatedEvents = async () =>
      (await mesh.query('crm', `SELECT count(*)::int AS n FROM outbox WHERE type = 'lead.updated' AND envelope->'data'->'object'->>'id' = $1`, [lead.id]))[0].n;

    it('every value type is set and read back as sent; an empty string is a value, not a clear', async () => {
      const values = { ratio: 0.25, negative: -3, off: false, empty: '', text: 'x'.repeat(1000) };
      const res = await patch({ custom_fields: values });
      expect(res.status).toBe(200);
      expect(res.body.custom_fields).toEqual({ plan: 'pro', seats: 12, ...values });
      expect((await current()).custom_fields).toEqual(res.body.custom_fields);
      const [entry] = (await listPage(mesh, key)).data;
      expect(entry.custom_fields).toEqual(res.body.custom_fields);
    });

    it('clearing a key the lead does not have changes nothing: same updated_at, no lead.updated', async () => {
      const before = await current();
      const events = await updatedEvents();
      const res = await patch({ custom_fields: { never_set: null } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(before);
      expect(await updatedEvents()).toBe(events);
    });

    it('clearing every key leaves an empty object; a key can be set again afterwards', async () => {
      const keys = Object.keys((await current()).custom_fields);
      const cleared = await patch({ custom_fields: Object.fromEntries(keys.map((k) => [k, null])) });
      expect(cleared.status).toBe(200);
      expect(cleared.body.custom_fields).toEqual({});
      expect((await current()).custom_fields).toEqual({});
      const again = await patch({ custom_fields: { plan: 'enterprise' } });
      expect(again.body.custom_fields).toEqual({ plan: 'enterprise' });
    });

    it.each<[string, unknown]>([
      ['a key with a space', { 'deal size': 1 }],
      ['a key of 65 characters', { ['k'.repeat(65)]: 1 }],
      ['a value of 1001 characters', { note: 'x'.repeat(1001) }],
      ['a nested object', { deal: { size: 1 } }],
      ['an array value', { deal: [1] }],
      ['101 keys', Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]))],
    ])('%s -> 400 param custom_fields, nothing changed', async (_label, fields) => {
      const before = await current();
      expectApiError(await patch({ custom_fields: fields }), 400, 'invalid_request', 'custom_fields');
      expect(await current()).toEqual(before);
    });
  });
});
