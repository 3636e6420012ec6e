import { SUBJECTS } from '@app/contracts/subjects';
import { meshHookTimeoutMs, TestMesh } from '../../harness';
import { startDns, startTarpit } from '../../../tools/mesh/mail-peers';
import { freePort, waitFor } from '../../../tools/mesh/processes';
import { allowance } from '../../support/timing';

/**
 * A domain whose three MX hosts accept TCP and never answer, verified with the default deadlines
 * (RPC_TIMEOUT_MS 10 s, EMAIL_VERIFY_TIMEOUT_MS 5 s per conversation): without one budget for the
 * whole verification, two hosts alone hold the reveal past the gateway's deadline.
 */
describe('reveal against mail servers that never answer', () => {
  let mesh: TestMesh;
  let dns: Awaited<ReturnType<typeof startDns>>;
  let tarpit: Awaited<ReturnType<typeof startTarpit>>;

  beforeAll(async () => {
    const smtpPort = await freePort();
    tarpit = await startTarpit(['127.0.0.2', '127.0.0.3', '127.0.0.4'], smtpPort);
    dns = await startDns({
      mx: { 'tarpit.test': ['mx1.tarpit.test', 'mx2.tarpit.test', 'mx3.tarpit.test'] },
      a: { 'mx1.tarpit.test': '127.0.0.2', 'mx2.tarpit.test': '127.0.0.3', 'mx3.tarpit.test': '127.0.0.4' },
    });
    mesh = await TestMesh.start(['gateway', 'billing', 'search', 'crm'], { EMAIL_VERIFY_DNS_SERVERS: dns.server, EMAIL_VERIFY_SMTP_PORT: String(smtpPort) });
  }, meshHookTimeoutMs(4));
  afterAll(async () => {
    await mesh?.close();
    await tarpit?.close();
    await dns?.close();
  });

  it('answers no_contact_found inside the RPC deadline, charging nothing', async () => {
    const src = [{ field: 'name', value: 'x', provider: 'crawler', source_url: 'https://tarpit.test/team', fetched_at: '2026-11-01T00:00:00.000Z' }];
    const entity = {
      ext_key: 't:tarpit', lens: 'leads', name: 'Ann Lee', person_name: 'Ann Lee', first_name: 'Ann', last_name: 'Lee', domain: 'tarpit.test',
      organization: 'Tarpit Ltd', country: 'GB', phone: null, facets: [], sources: src, details: { industry: 'software', size: '11-50', city: 'Leeds' },
    };
    expect((await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities: [entity] })).err).toBeUndefined();
    const [{ id }] = await mesh.query('search', `SELECT id FROM entities WHERE ext_key = 't:tarpit'`);
    const workspace = await mesh.createWorkspace({ name: 'tarpit', planCredits: 10 });
    const { key } = await mesh.key(workspace.id, 'live');
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).length === 1, allowance(10_000));

    expect((await mesh.request('GET', '/credits', { key })).body.balance.total).toBe(10);
    const started = Date.now();
    const res = await mesh.request('POST', '/reveals', { key, body: { entity_id: id } });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'reveal', status: 'no_contact_found', email: null, phone: null, credits_charged: 0, lead_id: null });
    expect(elapsed).toBeLessThan(allowance(10_000));
    expect(tarpit.connections()).toBeGreaterThanOrEqual(1);
    const balance = await mesh.request('GET', '/credits', { key });
    expect(balance.body.balance.total).toBe(10);
  });
});
