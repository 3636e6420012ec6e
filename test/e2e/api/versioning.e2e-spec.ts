import { TestMesh } from '../../harness';
import { CURRENT_VERSION, expectApiError, expectRateLimitHeaders, leadEvent, storedLeadCount } from '../../support/gateway-assertions';

/**
 * Spec, Versioning 1-2 and Endpoint conventions: `Service-Version` is optional, read per
 * request, defaults to the version pinned on the key; an unknown version is 400 naming the
 * header. The version a request ran with is observable in the events it causes (`api_version`).
 */
describe('gateway API versions (e2e)', () => {
  let mesh: TestMesh;
  let workspaceId: string;
  let key: string;
  let pinnedVersion: string;

  beforeAll(async () => {
    mesh = await TestMesh.shared(['gateway', 'crm']);
    const workspace = await mesh.createWorkspace({ name: 'versions' });
    const created = await mesh.key(workspace.id, 'live');
    workspaceId = workspace.id;
    key = created.key;
    pinnedVersion = created.api_version;
  });
  afterAll(() => mesh?.close());

  it('pins new keys to the current version', () => {
    expect(pinnedVersion).toBe(CURRENT_VERSION);
  });

  it(`accepts Service-Version: ${CURRENT_VERSION} on reads and writes, and the write runs with it`, async () => {
    const headers = { 'service-version': CURRENT_VERSION };
    const list = await mesh.request('GET', '/leads', { key, headers });
    expect(list.status).toBe(200);
    expect(list.body.object).toBe('list');
    const created = await mesh.request('POST', '/leads', { key, headers, body: { full_name: 'Versioned Lead' } });
    expect(created.status).toBe(201);
    expect((await leadEvent(mesh, 'lead.created', created.body.id)).api_version).toBe(CURRENT_VERSION);
  });

  it.each(['2020-01-01', '2026-09-27', '2026-09-29', '2026-9-28', 'latest', '2026-09-28,2026-09-28'])(
    'answers the unknown version %p with 400 invalid_request naming Service-Version',
    async (version) => {
      const res = await mesh.request('GET', '/leads', { key, headers: { 'service-version': version } });
      expectApiError(res, 400, 'invalid_request', 'Service-Version');
      expectRateLimitHeaders(res);
    },
  );

  it('refuses a POST with an unknown version without creating anything', async () => {
    const before = await storedLeadCount(mesh, workspaceId);
    const res = await mesh.request('POST', '/leads', { key, headers: { 'service-version': '2027-01-01' }, body: { full_name: 'Too New' } });
    expectApiError(res, 400, 'invalid_request', 'Service-Version');
    expect(await storedLeadCount(mesh, workspaceId)).toBe(before);
  });

  it("without the header, a request runs with the key's pinned version", async () => {
    const created = await mesh.request('POST', '/leads', { key, body: { full_name: 'Unversioned Lead' } });
    expect(created.status).toBe(201);
    expect((await leadEvent(mesh, 'lead.created', created.body.id)).api_version).toBe(pinnedVersion);
  });

  it('reads the header per request: a key pinned to an older version gets its pin without it, the header with it', async () => {
    // A key created back when an older version was current (written before its first use, so
    // no cache holds the original pin).
    const older = await mesh.key(workspaceId, 'live');
    await mesh.query('gateway', 'UPDATE api_keys SET api_version = $1 WHERE id = $2', ['2025-01-15', older.id]);

    const runs: [string | undefined, string][] = [
      [undefined, '2025-01-15'],
      [CURRENT_VERSION, CURRENT_VERSION],
      [undefined, '2025-01-15'],
    ];
    for (const [header, expected] of runs) {
      const created = await mesh.request('POST', '/leads', {
        key: older.key,
        headers: header ? { 'service-version': header } : {},
        body: { full_name: `Pinned ${expected}` },
      });
      expect(created.status).toBe(201);
      expect((await leadEvent(mesh, 'lead.created', created.body.id)).api_version).toBe(expected);
    }
  });
});
