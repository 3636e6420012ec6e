import { randomToken } from '@app/platform/ids';
import { ApiResponse, SHARED_ALL_START_MS, TestMesh } from '../../harness';
import { findInDatabases, plainFormsOfSecret } from '../../support/database-scan';
import { expectApiError, expectRequestId, listLeads } from '../../support/gateway-assertions';

/**
 * Spec, Endpoint conventions (`Idempotency-Key`) and Limits: up to 255 characters; a retry
 * returns the original status and body with `Idempotent-Replayed: true`; the same key with a
 * different body is 409 `conflict`; concurrent requests with one key execute once; keys are
 * scoped to the API key that sent them (a test key never replays a live response, a member's key
 * never an admin's), and a replay answers only while that key may still make the request.
 */
describe('gateway idempotency (e2e)', () => {
  let mesh: TestMesh;
  let a: Awaited<ReturnType<TestMesh['workspace']>>;
  let b: Awaited<ReturnType<TestMesh['workspace']>>;
  let aSecondKey: string;
  let aTestKey: string;
  /** One API key per concurrency round, so the bursts stay far from the 120-per-minute budget. */
  let racerKeys: string[];

  beforeAll(async () => {
    // every key look-up reaches the database (KEY_CACHE_TTL_MS=0 in SHARED_ALL_SETTINGS): a
    // member's role changed there is the gateway's at once
    mesh = await TestMesh.sharedAll();
    [a, b] = await Promise.all([mesh.workspace(), mesh.workspace()]);
    const extra = await Promise.all(
      Array.from({ length: 4 }, () => mesh.key(a.workspace.id, 'live')),
    );
    [aSecondKey, ...racerKeys] = extra.map((created) => created.key);
    aTestKey = (await mesh.key(a.workspace.id, 'test')).key;
  }, SHARED_ALL_START_MS);
  afterAll(() => mesh?.close());

  const newKey = () => `idem-${randomToken(16)}`;
  const uniqueName = (label: string) => `${label} ${randomToken(8)}`;

  function post(apiKey: string, idempotencyKey: string, body: unknown): Promise<ApiResponse> {
    return mesh.request('POST', '/leads', { key: apiKey, body, headers: { 'idempotency-key': idempotencyKey } });
  }

  async function leadsNamed(apiKey: string, name: string): Promise<any[]> {
    return (await listLeads(mesh, apiKey, `q=${encodeURIComponent(name)}`)).filter((lead) => lead.full_name === name);
  }

  it('replays the original status and byte-identical body with Idempotent-Replayed: true, executing once', async () => {
    const key = newKey();
    const name = uniqueName('Replay');
    const body = { full_name: name, title: 'Partner', tags: ['replay'], custom_fields: { tier: 1 } };

    const first = await post(a.key, key, body);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    for (let attempt = 0; attempt < 2; attempt++) {
      const again = await post(a.key, key, body);
      expect(again.status).toBe(first.status);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(first.text);
      expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(expectRequestId(again)).not.toBe(expectRequestId(first));
    }
    expect((await leadsNamed(a.key, name)).map((lead) => lead.id)).toEqual([first.body.id]);
  });

  it('answers the same key with a different body with 409 conflict, executing nothing, and still replays the original', async () => {
    const key = newKey();
    const name = uniqueName('Original');
    const first = await post(a.key, key, { full_name: name });
    expect(first.status).toBe(201);

    const otherName = uniqueName('Different');
    for (const body of [{ full_name: otherName }, { full_name: name, title: 'Extra' }]) {
      const conflict = await post(a.key, key, body);
      expectApiError(conflict, 409, 'conflict');
      expect(conflict.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await leadsNamed(a.key, otherName)).toEqual([]);

    const replay = await post(a.key, key, { full_name: name });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect((await leadsNamed(a.key, name)).map((lead) => lead.id)).toEqual([first.body.id]);
  });

  it.each([0, 1, 2])('executes 20 concurrent POSTs with one key and one body exactly once (round %i)', async (round) => {
    const apiKey = racerKeys[round];
    const key = newKey();
    // No email in the body: a second execution must show up as a second lead, not as a
    // duplicate-email 409 that would look like an idempotency conflict.
    const name = uniqueName('Concurrent');
    const body = { full_name: name, title: 'Racer' };

    const responses = await Promise.all(Array.from({ length: 20 }, () => post(apiKey, key, body)));

    for (const res of responses) {
      expect([201, 409]).toContain(res.status);
      expectRequestId(res);
      if (res.status === 409) expectApiError(res, 409, 'conflict');
    }
    const executed = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    const replayed = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === 'true');
    expect(executed).toHaveLength(1);
    const original = executed[0];
    expect(original.body.id).toMatch(/^lead_/);
    for (const res of replayed) expect(res.text).toBe(original.text);
    expect(executed.length + replayed.length + responses.filter((r) => r.status === 409).length).toBe(20);

    expect((await leadsNamed(apiKey, name)).map((lead) => lead.id)).toEqual([original.body.id]);
    const events = await mesh.query(
      'crm',
      `SELECT id FROM outbox WHERE type = 'lead.created' AND envelope->'data'->'object'->>'full_name' = $1`,
      [name],
    );
    expect(events).toHaveLength(1);

    // Once settled, every retry is a replay of that one execution.
    const retry = await post(apiKey, key, body);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(original.text);
  });

  it('refuses an Idempotency-Key longer than 255 characters with 400 naming the header, executing nothing', async () => {
    const name = uniqueName('Long Key');
    const res = await post(a.key, 'k'.repeat(256), { full_name: name });
    expectApiError(res, 400, 'invalid_request', 'Idempotency-Key');
    expect(await leadsNamed(a.key, name)).toEqual([]);
  });

  it('accepts a key of exactly 255 characters and replays with it', async () => {
    const key = `${randomToken(16)}${'k'.repeat(239)}`;
    expect(key).toHaveLength(255);
    const name = uniqueName('Max Key');
    const first = await post(a.key, key, { full_name: name });
    expect(first.status).toBe(201);
    const again = await post(a.key, key, { full_name: name });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await leadsNamed(a.key, name)).toHaveLength(1);
  });

  it('scopes keys to the workspace: the same key and body execute once in each of two workspaces', async () => {
    const key = newKey();
    const name = uniqueName('Scoped');
    const inA = await post(a.key, key, { full_name: name });
    const inB = await post(b.key, key, { full_name: name });
    expect([inA.status, inB.status]).toEqual([201, 201]);
    expect(inA.headers.get('idempotent-replayed')).toBeNull();
    expect(inB.headers.get('idempotent-replayed')).toBeNull();
    expect(inB.body.id).not.toBe(inA.body.id);
    expect((await leadsNamed(a.key, name)).map((lead) => lead.id)).toEqual([inA.body.id]);
    expect((await leadsNamed(b.key, name)).map((lead) => lead.id)).toEqual([inB.body.id]);

    // Each workspace's retry replays its own result.
    const replayB = await post(b.key, key, { full_name: name });
    expect(replayB.headers.get('idempotent-replayed')).toBe('true');
    expect(replayB.text).toBe(inB.text);
    const replayA = await post(a.key, key, { full_name: name });
    expect(replayA.headers.get('idempotent-replayed')).toBe('true');
    expect(replayA.text).toBe(inA.text);
  });

  it('scopes keys to the API key: another key of the workspace executes for itself and never gets the first key\'s answer', async () => {
    const key = newKey();
    const name = uniqueName('Per Key');
    const first = await post(a.key, key, { full_name: name });
    expect(first.status).toBe(201);
    const viaSecondKey = await post(aSecondKey, key, { full_name: name });
    expect(viaSecondKey.status).toBe(201);
    expect(viaSecondKey.headers.get('idempotent-replayed')).toBeNull();
    expect(viaSecondKey.body.id).not.toBe(first.body.id);
    // each key's retry replays its own answer
    for (const [apiKey, expected] of [[a.key, first], [aSecondKey, viaSecondKey]] as const) {
      const replay = await post(apiKey, key, { full_name: name });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(expected.text);
    }
    expect((await leadsNamed(a.key, name)).map((lead) => lead.id).sort()).toEqual([first.body.id, viaSecondKey.body.id].sort());
  });

  it('scopes keys to the mode: a test key never replays what a live key produced, nor the other way round', async () => {
    for (const [first, second] of [[a.key, aTestKey], [aTestKey, a.key]]) {
      const key = newKey();
      const name = uniqueName('Mode');
      const original = await post(first, key, { full_name: name });
      expect(original.status).toBe(201);
      // the same key and body from the other mode executes on its own: another lead, no replay
      const other = await post(second, key, { full_name: name });
      expect(other.status).toBe(201);
      expect(other.headers.get('idempotent-replayed')).toBeNull();
      expect(other.body.id).not.toBe(original.body.id);
      // each mode's retry replays its own result
      for (const [apiKey, expected] of [[first, original], [second, other]] as const) {
        const replay = await post(apiKey, key, { full_name: name });
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.text).toBe(expected.text);
      }
      expect((await leadsNamed(a.key, name)).map((lead) => lead.id).sort()).toEqual([original.body.id, other.body.id].sort());
    }
    // with another body it is no conflict either: the other mode's record is not seen
    const key = newKey();
    const liveOnly = await post(a.key, key, { full_name: uniqueName('Mode Conflict') });
    expect(liveOnly.status).toBe(201);
    const testOther = await post(aTestKey, key, { full_name: uniqueName('Mode Other Body') });
    expect(testOther.status).toBe(201);
    expect(testOther.headers.get('idempotent-replayed')).toBeNull();
  });

  it('does not apply to requests sent without the header: each executes', async () => {
    const name = uniqueName('No Key');
    const first = await mesh.request('POST', '/leads', { key: a.key, body: { full_name: name } });
    const second = await mesh.request('POST', '/leads', { key: a.key, body: { full_name: name } });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(await leadsNamed(a.key, name)).toHaveLength(2);
  });

  describe('POST /webhook_endpoints: a replay re-checks who asks', () => {
    /** Keys of workspace a acting as a member, as two admins, and as an admin later made a member. */
    let memberKey: string;
    let adminKey: string;
    let otherAdminKey: string;
    let demotedKey: string;
    let demotedMember: string;

    beforeAll(async () => {
      const keyOf = async (role: string) => {
        const member = await mesh.admin('member:add', '--workspace', a.workspace.id, '--role', role);
        const created = await mesh.key(a.workspace.id, 'live', { member: member.id });
        return { key: created.key as string, keyId: created.id as string, memberId: member.id as string };
      };
      const [member, admin, otherAdmin, demoted] = await Promise.all([keyOf('member'), keyOf('admin'), keyOf('admin'), keyOf('admin')]);
      [memberKey, adminKey, otherAdminKey, demotedKey] = [member.key, admin.key, otherAdmin.key, demoted.key];
      demotedMember = demoted.memberId;
    });

    // an event no service of this mesh emits: nothing is ever delivered to these endpoints
    const events = ['sequence.completed'];
    const create = (apiKey: string, idempotencyKey: string, path: string) =>
      mesh.request('POST', '/webhook_endpoints', {
        key: apiKey,
        body: { url: `https://hooks.example.com/${path}`, events },
        headers: { 'idempotency-key': idempotencyKey },
      });
    const endpointsAt = async (path: string): Promise<string[]> => {
      const res = await mesh.request('GET', '/webhook_endpoints?limit=100', { key: a.key });
      expect(res.status).toBe(200);
      return res.body.data.filter((e: { url: string }) => e.url === `https://hooks.example.com/${path}`).map((e: { id: string }) => e.id);
    };

    it("a member repeating an admin's create with the same key gets 403, never the 201 and its signing secret; the admin's retry still replays", async () => {
      const key = newKey();
      const path = `admin-${randomToken(6)}`;
      const made = await create(adminKey, key, path);
      expect(made.status).toBe(201);
      expect(made.body.secret).toMatch(/^whsec_/);

      const asMember = await create(memberKey, key, path);
      expectApiError(asMember, 403, 'permission_denied');
      expect(asMember.headers.get('idempotent-replayed')).toBeNull();
      expect(asMember.text).not.toContain('whsec_');
      expect(asMember.text).not.toContain(made.body.secret);

      const retry = await create(adminKey, key, path);
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.text).toBe(made.text);
      expect(await endpointsAt(path)).toEqual([made.body.id]);
    });

    it("an admin repeating a member's refused create with the same key is authorized for itself, not answered the member's 403", async () => {
      const key = newKey();
      const path = `member-${randomToken(6)}`;
      const refused = await create(memberKey, key, path);
      expectApiError(refused, 403, 'permission_denied');

      const asAdmin = await create(adminKey, key, path);
      expect(asAdmin.status).toBe(201);
      expect(asAdmin.headers.get('idempotent-replayed')).toBeNull();
      expect(asAdmin.body.secret).toMatch(/^whsec_/);
      expect(await endpointsAt(path)).toEqual([asAdmin.body.id]);

      // the member's own retry is its own answer again, with nothing of the admin's
      const memberRetry = await create(memberKey, key, path);
      expectApiError(memberRetry, 403, 'permission_denied');
      expect(memberRetry.text).not.toContain(asAdmin.body.secret);
    });

    it("another admin's key with the same key gets an endpoint of its own, from the gateway and from the service's record of the create alike", async () => {
      const key = newKey();
      const path = `admins-${randomToken(6)}`;
      const first = await create(adminKey, key, path);
      expect(first.status).toBe(201);
      const second = await create(otherAdminKey, key, path);
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBeNull();
      expect(second.body.id).not.toBe(first.body.id);
      expect(second.body.secret).not.toBe(first.body.secret);

      // The gateway's records gone (expired, or released after a timeout) while webhooks still
      // holds what each key created: each key is answered its own endpoint, never the other's.
      await mesh.query('gateway', 'DELETE FROM idempotency_records WHERE key = $1', [key]);
      const third = await create(otherAdminKey, key, path);
      expect(third.status).toBe(201);
      expect(third.headers.get('idempotent-replayed')).toBeNull();
      expect({ id: third.body.id, secret: third.body.secret }).toEqual({ id: second.body.id, secret: second.body.secret });
      await mesh.query('gateway', 'DELETE FROM idempotency_records WHERE key = $1', [key]);
      const again = await create(adminKey, key, path);
      expect({ id: again.body.id, secret: again.body.secret }).toEqual({ id: first.body.id, secret: first.body.secret });
      expect((await endpointsAt(path)).sort()).toEqual([first.body.id, second.body.id].sort());
    });

    it("a key whose member is no longer an admin is not replayed the create it made as one: 409, no secret", async () => {
      const key = newKey();
      const path = `demoted-${randomToken(6)}`;
      const made = await create(demotedKey, key, path);
      expect(made.status).toBe(201);
      await mesh.query('gateway', "UPDATE members SET role = 'member' WHERE id = $1", [demotedMember]);

      const retry = await create(demotedKey, key, path);
      expectApiError(retry, 409, 'conflict', 'Idempotency-Key');
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(retry.text).not.toContain(made.body.secret);
      // without the key, the request is what the member may do now: refused
      expectApiError(await mesh.request('POST', '/webhook_endpoints', { key: demotedKey, body: { url: `https://hooks.example.com/${path}`, events } }), 403, 'permission_denied');
      expect(await endpointsAt(path)).toEqual([made.body.id]);
    });
  });

  describe('POST /webhook_endpoints and POST /webhook_endpoints/{id}/secret/roll: stored answers keep no secret in plaintext', () => {
    it('no database of the mesh holds a signing secret in any plain form; the same key is still replayed the same secrets', async () => {
      const path = `sealed-${randomToken(8)}`;
      const createKey = newKey();
      const rollKey = newKey();
      const body = { url: `https://hooks.example.com/${path}`, events: ['sequence.completed'] };
      const created = await mesh.request('POST', '/webhook_endpoints', { key: a.key, body, headers: { 'idempotency-key': createKey } });
      expect(created.status).toBe(201);
      expect(created.body.secret).toMatch(/^whsec_/);
      const rolled = await mesh.request('POST', `/webhook_endpoints/${created.body.id}/secret/roll`, { key: a.key, headers: { 'idempotency-key': rollKey } });
      expect(rolled.status).toBe(200);
      expect(rolled.body.secret).toMatch(/^whsec_/);
      expect(rolled.body.secret).not.toBe(created.body.secret);

      // the scan sees what does rest in plaintext (the endpoint's URL), and no form of either secret
      expect((await findInDatabases(mesh, { url: path })).map((s) => s.table)).toContain(`${mesh.dbPrefix}webhooks.public.webhook_endpoints`);
      for (const secret of [created.body.secret, rolled.body.secret]) {
        expect(await findInDatabases(mesh, plainFormsOfSecret(secret))).toEqual([]);
      }

      for (const [original, request] of [
        [created, () => mesh.request('POST', '/webhook_endpoints', { key: a.key, body, headers: { 'idempotency-key': createKey } })],
        [rolled, () => mesh.request('POST', `/webhook_endpoints/${created.body.id}/secret/roll`, { key: a.key, headers: { 'idempotency-key': rollKey } })],
      ] as const) {
        const replay = await request();
        expect(replay.status).toBe(original.status);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.text).toBe(original.text);
      }
    });
  });
});
