import { SUBJECTS } from '@app/contracts';
import { TestMesh } from '../harness';
import { startDns, startSmtp } from '../../tools/mesh/mail-peers';
import { MAIL_ZONE } from '../support/mail-zone';
import { waitFor } from '../../tools/mesh/processes';
import { expectApiError } from './gateway-assertions';

const src = [{ field: 'name', value: 'x', provider: 'sec_edgar', source_url: 'https://www.sec.gov/x', fetched_at: '2026-11-01T00:00:00.000Z' }];
const entity = (key: string, fields: Record<string, unknown>) => ({
  ext_key: `t:${key}`, lens: 'investors', name: `Fund ${key}`, details: { stages: ['seed'], sectors: ['fintech'], check_size_usd: { min: 1, max: 2 }, last_filing_at: '2026-01-01' },
  facets: [], sources: src, phone: '+14155550100', country: 'US', organization: `Fund ${key}`, ...fields,
});

describe('reveals', () => {
  let mesh: TestMesh;
  let dns: Awaited<ReturnType<typeof startDns>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const ids: Record<string, string> = {};
  let ws: string;
  let key: string;
  let testKey: string;

  async function account(plan: number) {
    const workspace = await mesh.admin('workspace:create', '--name', 'reveals', '--plan-credits', String(plan));
    const live = await mesh.admin('key:create', '--workspace', workspace.id, '--mode', 'live');
    const test = await mesh.admin('key:create', '--workspace', workspace.id, '--mode', 'test');
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).length === 1, 10_000);
    return { ws: workspace.id as string, key: live.key as string, testKey: test.key as string };
  }
  const reveal = (entityId: string, k = key) => mesh.request('POST', '/reveals', { key: k, body: { entity_id: entityId } });
  const total = async (k = key) => (await mesh.request('GET', '/credits', { key: k })).body.balance.total as number;

  beforeAll(async () => {
    dns = await startDns(MAIL_ZONE);
    smtp = await startSmtp({ accept: ['jane@good.test', 'alee@good.test', 'info@good.test', 'c0@good.test'], catchAll: ['catchall.test'] });
    mesh = await TestMesh.start(['gateway', 'billing', 'search', 'crm'], {
      EMAIL_VERIFY_DNS_SERVERS: dns.server, EMAIL_VERIFY_SMTP_PORT: String(smtp.port), EMAIL_VERIFY_TIMEOUT_MS: '3000',
    });
    const entities = [
      entity('valid', { person_name: 'Jane Roe', first_name: 'Jane', last_name: 'Roe', email: 'jane@good.test', domain: 'good.test' }),
      entity('catchall', { person_name: 'Bob Poe', email: 'bob@catchall.test', domain: 'catchall.test' }),
      entity('role', { email: 'info@good.test', domain: 'good.test' }),
      entity('pattern', { person_name: 'Ann Lee', first_name: 'Ann', last_name: 'Lee', domain: 'good.test' }),
      entity('invalid', { person_name: 'No Body', email: 'nobody@good.test', domain: 'good.test' }),
      entity('nomail', { person_name: 'X Y', email: 'x@nomail.test' }),
      entity('concurrent', { person_name: 'C Zero', email: 'c0@good.test', domain: 'good.test' }),
      entity('crmdown', { person_name: 'D Own', email: 'jane@good.test', domain: 'good.test' }),
    ];
    const res = await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities });
    expect(res.err).toBeUndefined();
    for (const row of await mesh.query('search', 'SELECT id, ext_key FROM entities')) ids[row.ext_key.slice(2)] = row.id;
    ({ ws, key, testKey } = await account(100));
  });
  afterAll(async () => {
    await mesh?.close();
    await smtp?.close();
    await dns?.close();
  });

  it('first reveal: 201, 1 credit, verified email, phone, lead in crm, reveal.completed; repeat is 200 and free', async () => {
    const before = await total();
    const res = await reveal(ids.valid);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^rev_/), object: 'reveal', entity_id: ids.valid, lead_id: expect.stringMatching(/^lead_/), status: 'revealed',
      email: 'jane@good.test', email_status: 'valid', email_confidence: 95, phone: '+14155550100', credits_charged: 1, already_revealed: false, livemode: true,
    });
    expect(res.body.sources.length).toBeGreaterThan(0);
    expect(await total()).toBe(before - 1);
    const lead = await mesh.request('GET', `/leads/${res.body.lead_id}`, { key });
    expect(lead.body).toMatchObject({ revealed: true, lens: 'investors', email: 'jane@good.test', email_status: 'valid', full_name: 'Jane Roe' });
    expect(lead.body.sources.some((s: any) => s.provider === 'sec_edgar')).toBe(true);
    const events = await mesh.query('search', `SELECT envelope FROM outbox WHERE type = 'reveal.completed'`);
    expect(events.map((e) => e.envelope.data.object.id)).toContain(res.body.id);

    const again = await reveal(ids.valid);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: res.body.id, already_revealed: true, credits_charged: 0, email: 'jane@good.test', lead_id: res.body.lead_id });
    expect(await total()).toBe(before - 1);

    const hits = await mesh.request('GET', '/search?lens=investors&q=Fund', { key });
    const hit = hits.body.data.find((h: any) => h.entity_id === ids.valid);
    expect(hit).toMatchObject({ revealed: true, email_status: 'valid', email_masked: 'j***@good.test' });
  });

  it('catch_all and role addresses are revealed with that status; candidate patterns find a name-only contact', async () => {
    expect((await reveal(ids.catchall)).body).toMatchObject({ status: 'revealed', email_status: 'catch_all' });
    expect((await reveal(ids.role)).body).toMatchObject({ status: 'revealed', email_status: 'risky' });
    expect((await reveal(ids.pattern)).body).toMatchObject({ status: 'revealed', email: 'alee@good.test', email_status: 'valid' });
  });

  it('nothing verifiable: no_contact_found, consumed then refunded, event emitted', async () => {
    const before = await total();
    for (const name of ['invalid', 'nomail']) {
      const res = await reveal(ids[name]);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'no_contact_found', credits_charged: 0, email: null, lead_id: null, already_revealed: false });
      const ledger = await mesh.query('billing', 'SELECT type, amount, reason FROM ledger_entries WHERE ref = $1 ORDER BY type', [res.body.id]);
      expect(ledger).toEqual([{ type: 'consume', amount: -1, reason: 'reveal' }, { type: 'refund', amount: 1, reason: 'reveal_failed' }]);
      const events = await mesh.query('search', `SELECT 1 FROM outbox WHERE type = 'reveal.completed' AND envelope->'data'->'object'->>'id' = $1`, [res.body.id]);
      expect(events).toHaveLength(1);
    }
    expect(await total()).toBe(before);
  });

  it('test key: dry_run, no contact, nothing charged; unknown entity 404; bad body 400', async () => {
    const before = await total();
    const res = await reveal(ids.concurrent, testKey);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'dry_run', lead_id: null, email: null, phone: null, credits_charged: 0, livemode: false });
    expect(await total()).toBe(before);
    expectApiError(await reveal('ent_doesnotexist'), 404, 'not_found', 'entity_id');
    expectApiError(await mesh.request('POST', '/reveals', { key, body: {} }), 400, 'invalid_request', 'entity_id');
    expectApiError(await mesh.request('POST', '/reveals', { key, body: { entity_id: ids.valid, extra: 1 } }), 400, 'invalid_request', 'extra');
  });

  it('concurrent reveals of one entity charge exactly once', async () => {
    const before = await total();
    const results = await Promise.all(Array.from({ length: 10 }, () => reveal(ids.concurrent)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(9);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(await total()).toBe(before - 1);
  });

  it('402 when the reveal cannot be paid: nothing charged, nothing revealed', async () => {
    const poor = await account(0);
    expectApiError(await reveal(ids.valid, poor.key), 402, 'insufficient_credits');
    expect(await mesh.query('search', 'SELECT 1 FROM reveals WHERE workspace_id = $1', [poor.ws])).toEqual([]);
    expect(await mesh.query('billing', 'SELECT 1 FROM ledger_entries WHERE workspace_id = $1', [poor.ws])).toEqual([]);
  });

  it('saga: crm or billing stopped mid-reveal takes no credit and reveals nothing', async () => {
    const before = await total();
    await mesh.stopApp('crm');
    const res = await reveal(ids.crmdown);
    expect(res.status).toBe(500);
    expect(await total()).toBe(before);
    expect(await mesh.query('search', 'SELECT 1 FROM reveals WHERE workspace_id = $1 AND entity_id = $2', [ws, ids.crmdown])).toEqual([]);
    await mesh.startApp('crm');
    await mesh.stopApp('billing');
    expect((await reveal(ids.crmdown)).status).toBe(500);
    await mesh.startApp('billing');
    expect(await total()).toBe(before);
    const ok = await reveal(ids.crmdown);
    expect(ok.status).toBe(201);
    expect(await total()).toBe(before - 1);
    const sums = await mesh.query('billing', 'SELECT (SELECT sum(amount) FROM ledger_entries WHERE workspace_id = $1) AS s, plan_balance + pack_balance AS b FROM credit_accounts WHERE workspace_id = $1', [ws]);
    expect(Number(sums[0].s)).toBe(sums[0].b);
  });
});
