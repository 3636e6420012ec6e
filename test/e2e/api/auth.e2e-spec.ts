import { SUBJECTS } from '@app/contracts/subjects';
import { randomToken } from '@app/platform/ids';
import { TestMesh } from '../../harness';
import {
  expectApiError, expectRateLimitHeaders, expectRequestId, leadEvent, listLeads, storedLeadCount,
} from '../../support/gateway-assertions';

/**
 * Spec, Authentication 1-7 and Errors: the Bearer key, revocation, test keys, the plan and lens
 * permission checks, and Request-Id on every response.
 */
describe('gateway authentication and permissions (e2e)', () => {
  let mesh: TestMesh;
  let agency: Awaited<ReturnType<TestMesh['workspace']>>;
  let testMode: Awaited<ReturnType<TestMesh['workspace']>>;
  let growth: Awaited<ReturnType<TestMesh['workspace']>>;
  let starter: Awaited<ReturnType<TestMesh['workspace']>>;
  let free: Awaited<ReturnType<TestMesh['workspace']>>;
  let leadsOnly: Awaited<ReturnType<TestMesh['workspace']>>;

  beforeAll(async () => {
    mesh = await TestMesh.shared(['gateway', 'crm']);
    [agency, testMode, growth, starter, free, leadsOnly] = await Promise.all([
      mesh.workspace(),
      mesh.workspace({ mode: 'test' }),
      mesh.workspace({ plan: 'growth' }),
      mesh.workspace({ plan: 'starter' }),
      mesh.workspace({ plan: 'free' }),
      mesh.workspace({ lenses: 'leads' }),
    ]);
  });
  afterAll(() => mesh?.close());

  describe('Authorization header', () => {
    it('accepts "Bearer <key>" (the control for every 401 below)', async () => {
      const res = await mesh.request('GET', '/leads', { headers: { authorization: `Bearer ${agency.key}` } });
      expect(res.status).toBe(200);
      expect(res.body.object).toBe('list');
      expectRequestId(res);
    });

    it('answers a request without Authorization with 401 authentication_failed', async () => {
      const res = await mesh.request('GET', '/leads');
      expectApiError(res, 401, 'authentication_failed');
      expectRateLimitHeaders(res);
    });

    it.each([
      ['the bare key', (k: string) => k],
      ['Basic scheme', (k: string) => `Basic ${k}`],
      ['Token scheme', (k: string) => `Token ${k}`],
      ['Bearer without a key', () => 'Bearer'],
      ['Bearer with a colon', (k: string) => `Bearer:${k}`],
      ['Bearer with two keys', (k: string) => `Bearer ${k} ${k}`],
      ['Bearer with a truncated key', (k: string) => `Bearer ${k.slice(0, 12)}`],
    ])('answers a header not of the form "Bearer <key>" (%s) with 401', async (_label, header) => {
      const res = await mesh.request('GET', '/leads', { headers: { authorization: header(agency.key) } });
      expectApiError(res, 401, 'authentication_failed');
    });

    it.each([
      ['a live key never issued', () => `svc_live_${randomToken(32)}`],
      ['a test key never issued', () => `svc_test_${randomToken(32)}`],
      ['a key of an unknown kind', () => `svc_prod_${randomToken(32)}`],
      ['a valid key with one character changed', () => `${agency.key.slice(0, -1)}${agency.key.endsWith('A') ? 'B' : 'A'}`],
    ])('answers %s with 401', async (_label, key) => {
      const res = await mesh.request('GET', '/leads', { key: key() });
      expectApiError(res, 401, 'authentication_failed');
    });

    it('rejects a POST with a bad key without creating anything', async () => {
      const before = await storedLeadCount(mesh, agency.workspace.id);
      const res = await mesh.request('POST', '/leads', { key: `svc_live_${randomToken(32)}`, body: { full_name: 'Nobody' } });
      expectApiError(res, 401, 'authentication_failed');
      expect(await storedLeadCount(mesh, agency.workspace.id)).toBe(before);
    });
  });

  describe('revoked keys', () => {
    it('answers 401 on the very next request after key:revoke; other keys keep working', async () => {
      const revocable = await mesh.key(agency.workspace.id, 'live');
      // Used first, so any per-replica cache of the key is warm when it is revoked.
      const before = await mesh.request('GET', '/leads', { key: revocable.key });
      expect(before.status).toBe(200);
      const created = await mesh.request('POST', '/leads', { key: revocable.key, body: { full_name: 'Before Revocation' } });
      expect(created.status).toBe(201);

      const revoked = await mesh.admin('key:revoke', '--key', revocable.id);
      expect(revoked).toEqual({ id: revocable.id, revoked: true });

      const read = await mesh.request('GET', '/leads', { key: revocable.key });
      expectApiError(read, 401, 'authentication_failed');
      const write = await mesh.request('POST', '/leads', { key: revocable.key, body: { full_name: 'After Revocation' } });
      expectApiError(write, 401, 'authentication_failed');
      const lookup = await mesh.request('GET', `/leads/${created.body.id}`, { key: revocable.key });
      expectApiError(lookup, 401, 'authentication_failed');

      // The workspace's other key is untouched, and the refused write created nothing.
      const names = (await listLeads(mesh, agency.key)).map((lead) => lead.full_name);
      expect(names).toContain('Before Revocation');
      expect(names).not.toContain('After Revocation');
    });
  });

  describe('test keys', () => {
    it('are issued with the svc_test_ prefix (live keys with svc_live_)', () => {
      expect(testMode.key).toMatch(/^svc_test_/);
      expect(agency.key).toMatch(/^svc_live_/);
    });

    it('read and write CRM data like live keys', async () => {
      const key = testMode.key;
      const created = await mesh.request('POST', '/leads', {
        key,
        body: { first_name: 'Tess', last_name: 'Key', email: `tess-${randomToken(6).toLowerCase()}@example.com` },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ object: 'lead', full_name: 'Tess Key' });
      expectRequestId(created);
      const id = created.body.id;

      const read = await mesh.request('GET', `/leads/${id}`, { key });
      expect(read.status).toBe(200);
      expect(read.body.id).toBe(id);
      expect((await listLeads(mesh, key)).map((lead) => lead.id)).toEqual([id]);

      const updated = await mesh.request('PATCH', `/leads/${id}`, { key, body: { title: 'Tester' } });
      expect(updated.status).toBe(200);
      expect(updated.body.title).toBe('Tester');

      const deleted = await mesh.request('DELETE', `/leads/${id}`, { key });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ id, object: 'lead', deleted: true });
      expectApiError(await mesh.request('GET', `/leads/${id}`, { key }), 404, 'not_found');
    });

    it('mark the events they cause livemode false (live keys: true)', async () => {
      const fromTest = await mesh.request('POST', '/leads', { key: testMode.key, body: { full_name: 'Test Mode Event' } });
      const fromLive = await mesh.request('POST', '/leads', { key: agency.key, body: { full_name: 'Live Mode Event' } });
      expect([fromTest.status, fromLive.status]).toEqual([201, 201]);
      expect((await leadEvent(mesh, 'lead.created', fromTest.body.id)).livemode).toBe(false);
      expect((await leadEvent(mesh, 'lead.created', fromLive.body.id)).livemode).toBe(true);
    });
  });

  describe('plan', () => {
    it.each(['growth', 'starter', 'free'])('a workspace on the %s plan gets 403 permission_denied', async (plan) => {
      const { key } = { growth, starter, free }[plan as 'growth' | 'starter' | 'free'];
      expectApiError(await mesh.request('GET', '/leads', { key }), 403, 'permission_denied');
    });

    it('refuses every lead endpoint to a growth workspace, and nothing changes', async () => {
      const { key, workspace } = growth;
      // A lead of this very workspace, written through crm directly (the API is closed to it).
      const seeded = await mesh.rpc(SUBJECTS.crm.leadsCreate, { workspace_id: workspace.id, plan: 'growth' }, { full_name: 'Growth Lead' });
      expect(seeded.err).toBeUndefined();
      const id = seeded.response.id;
      const calls: [string, string, unknown?][] = [
        ['GET', '/leads'],
        ['GET', '/leads?lens=leads'],
        ['POST', '/leads', { full_name: 'Second Growth Lead' }],
        ['GET', `/leads/${id}`],
        ['PATCH', `/leads/${id}`, { title: 'Changed' }],
        ['DELETE', `/leads/${id}`],
      ];
      for (const [method, path, body] of calls) {
        const res = await mesh.request(method, path, { key, body });
        expectApiError(res, 403, 'permission_denied');
        expectRateLimitHeaders(res);
        expect(JSON.stringify(res.body)).not.toContain(id);
      }
      const rows = await mesh.query('crm', 'SELECT id, title FROM leads WHERE workspace_id = $1', [workspace.id]);
      expect(rows).toEqual([{ id, title: null }]);
    });
  });

  describe('lenses on the plan', () => {
    it('GET /leads?lens=<lens not on the plan> is 403 with param lens', async () => {
      for (const lens of ['investors', 'researchers', 'grants']) {
        expectApiError(await mesh.request('GET', `/leads?lens=${lens}`, { key: leadsOnly.key }), 403, 'permission_denied', 'lens');
      }
      expect((await mesh.request('GET', '/leads?lens=leads', { key: leadsOnly.key })).status).toBe(200);
    });

    it('POST /leads with a lens not on the plan is 403 with param lens and creates nothing', async () => {
      const refused = await mesh.request('POST', '/leads', { key: leadsOnly.key, body: { lens: 'investors', full_name: 'Blocked Fund' } });
      expectApiError(refused, 403, 'permission_denied', 'lens');
      expect(await storedLeadCount(mesh, leadsOnly.workspace.id)).toBe(0);

      const allowed = await mesh.request('POST', '/leads', { key: leadsOnly.key, body: { lens: 'leads', full_name: 'Allowed Person' } });
      expect(allowed.status).toBe(201);
      expect((await listLeads(mesh, leadsOnly.key)).map((lead) => lead.full_name)).toEqual(['Allowed Person']);
    });

    it('the same requests succeed for a workspace with every lens (control)', async () => {
      expect((await mesh.request('GET', '/leads?lens=investors', { key: agency.key })).status).toBe(200);
      const created = await mesh.request('POST', '/leads', { key: agency.key, body: { lens: 'investors', full_name: 'Open Fund' } });
      expect(created.status).toBe(201);
      expect(created.body.lens).toBe('investors');
    });
  });

  describe('Request-Id', () => {
    it('is on every response, successful or not, and differs per request', async () => {
      const lead = await mesh.request('POST', '/leads', { key: agency.key, body: { full_name: 'Request Id' } });
      const responses = [
        lead, // 201
        await mesh.request('GET', `/leads/${lead.body.id}`, { key: agency.key }), // 200
        await mesh.request('GET', '/leads?limit=0', { key: agency.key }), // 400
        await mesh.request('GET', '/leads'), // 401
        await mesh.request('GET', '/leads', { key: growth.key }), // 403
        await mesh.request('GET', '/leads/lead_missing', { key: agency.key }), // 404 object
        await mesh.request('GET', '/no-such-route', { key: agency.key }), // 404 route
        await mesh.request('POST', '/leads', { key: agency.key, rawBody: '{', headers: { 'content-type': 'application/json' } }), // 400 JSON
      ];
      expect(responses.map((r) => r.status)).toEqual([201, 200, 400, 401, 403, 404, 404, 400]);
      const ids = responses.map(expectRequestId);
      expect(new Set(ids).size).toBe(ids.length);
    });
  });
});
