import { Client } from 'pg';
import { SUBJECTS } from '@app/contracts/subjects';
import { CLAIM_OWNER_TIMING } from '@app/platform/claim-owner';
import { scopedServiceKey } from '../../../apps/gateway/src/idempotency/idempotency.store';
import { REVEAL_CLAIM_OWNERS } from '../../../apps/search/src/reveals/reveal-owner';
import { parseProviderFile } from '../../../apps/admin/src/ingest/connectors';
import { TestMesh, meshHookTimeoutMs } from '../../harness';
import { OPEN_ACCOUNT_WAIT_MS } from '@app/contracts/resources/workspace';
import { startDns, startSmtp, Zone } from '../../../tools/mesh/mail-peers';
import { MAIL_ZONE } from '../../support/mail-zone';
import { expectRealSources } from '../../support/sources';
import { waitFor } from '../../../tools/mesh/processes';
import { expectApiError } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

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
  let keyId: string;
  let testKey: string;

  async function account(plan: number) {
    const workspace = await mesh.createWorkspace({ name: 'reveals', planCredits: plan });
    const live = await mesh.key(workspace.id, 'live');
    const test = await mesh.key(workspace.id, 'test');
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).length === 1, allowance(10_000));
    return { ws: workspace.id as string, key: live.key as string, keyId: live.id as string, testKey: test.key as string };
  }
  // every reveal answered in this file cites real records
  const reveal = async (entityId: string, k = key) => {
    const res = await mesh.request('POST', '/reveals', { key: k, body: { entity_id: entityId } });
    if (res.status < 300) expectRealSources(res.body.sources);
    return res;
  };
  const lead = async (id: string) => {
    const res = await mesh.request('GET', `/leads/${id}`, { key });
    expect(res.status).toBe(200);
    expectRealSources(res.body.sources);
    return res.body;
  };
  // flaky.test's resolver fails until a test repairs it; mx.smtpdown.test has no mail server listening
  const zone: Zone = {
    mx: { ...MAIL_ZONE.mx, 'smtpdown.test': ['mx.smtpdown.test'], 'acme.test': ['mx.good.test'] },
    a: { ...MAIL_ZONE.a, 'mx.smtpdown.test': '127.0.0.2' },
    servfail: ['flaky.test'],
  };
  const northwind = {
    api_version: '0.4', results: { company: {
      name: 'ACME TEST LIMITED', company_number: '01234567', jurisdiction_code: 'gb', opencorporates_url: 'https://opencorporates.com/companies/gb/01234567',
      registered_address: { locality: 'London', country: 'England' }, website: 'https://www.acme.test',
      industry_codes: [{ industry_code: { description: 'software development' } }], officers: [],
    } },
  };
  const total = async (k = key) => (await mesh.request('GET', '/credits', { key: k })).body.balance.total as number;

  beforeAll(async () => {
    dns = await startDns(zone);
    smtp = await startSmtp({ accept: ['jane@good.test', 'alee@good.test', 'info@good.test', 'c0@good.test', 'fay@flaky.test', 'wes@acme.test'], catchAll: ['catchall.test'] });
    mesh = await TestMesh.start(['gateway', 'billing', 'search', 'crm'], {
      EMAIL_VERIFY_DNS_SERVERS: dns.server, EMAIL_VERIFY_SMTP_PORT: String(smtp.port), EMAIL_VERIFY_TIMEOUT_MS: '3000',
    });
    const entities = [
      entity('valid', { person_name: 'Jane Roe', first_name: 'Jane', last_name: 'Roe', email: 'jane@good.test', domain: 'good.test' }),
      entity('catchall', { person_name: 'Bob Poe', email: 'bob@catchall.test', domain: 'catchall.test' }),
      entity('role', { email: 'info@good.test', domain: 'good.test' }),
      entity('pattern', {
        person_name: 'Ann Lee', first_name: 'Ann', last_name: 'Lee', domain: 'good.test',
        sources: [...src, { field: 'domain', value: 'good.test', provider: 'crawler', source_url: 'https://good.test/team', fetched_at: '2026-10-01T00:00:00.000Z' }],
      }),
      entity('invalid', { person_name: 'No Body', email: 'nobody@good.test', domain: 'good.test', phone: null }),
      entity('nomail', { person_name: 'X Y', email: 'x@nomail.test', phone: null }),
      entity('flaky', { person_name: 'Fay Lake', first_name: 'Fay', last_name: 'Lake', email: 'fay@flaky.test', domain: 'flaky.test', phone: null }),
      entity('phoneonly', { person_name: 'Pat Hone', email: 'pat@smtpdown.test', domain: 'smtpdown.test', phone: '+14155550199' }),
      entity('worker', {
        lens: 'leads', name: 'Wes Orker', person_name: 'Wes Orker', first_name: 'Wes', last_name: 'Orker', email: 'wes@acme.test', domain: 'acme.test',
        organization: 'Acme Test Ltd', country: 'GB', phone: null, details: { industry: 'software', size: '51-200', city: 'Leeds' },
        sources: [{ field: 'name', value: 'Wes Orker', provider: 'crawler', source_url: 'https://acme.test/team', fetched_at: '2026-10-02T00:00:00.000Z' }],
      }),
      ...parseProviderFile('opencorporates', JSON.stringify(northwind), '2026-10-03T00:00:00.000Z'),
      entity('concurrent', { person_name: 'C Zero', email: 'c0@good.test', domain: 'good.test' }),
      entity('crmdown', { person_name: 'D Own', email: 'jane@good.test', domain: 'good.test' }),
      entity('abandoned', { person_name: 'Ab Andon' }),
      entity('heldup', { person_name: 'Hel Dup' }),
      entity('ownergone', { person_name: 'Own Ergone' }),
    ];
    const res = await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities });
    expect(res.err).toBeUndefined();
    for (const row of await mesh.query('search', 'SELECT id, ext_key FROM entities')) ids[row.ext_key.replace(/^t:/, '')] = row.id;
    ({ ws, key, keyId, testKey } = await account(100));
  }, meshHookTimeoutMs(4));
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
    // the email and the phone cite the record that carried them
    expect(res.body.sources).toEqual(expect.arrayContaining([
      { field: 'email', value: 'jane@good.test', provider: 'sec_edgar', source_url: 'https://www.sec.gov/x', fetched_at: '2026-11-01T00:00:00.000Z' },
      { field: 'phone', value: '+14155550100', provider: 'sec_edgar', source_url: 'https://www.sec.gov/x', fetched_at: '2026-11-01T00:00:00.000Z' },
    ]));
    expect(await total()).toBe(before - 1);
    const revealedLead = await lead(res.body.lead_id);
    expect(revealedLead).toMatchObject({ revealed: true, lens: 'investors', email: 'jane@good.test', email_status: 'valid', full_name: 'Jane Roe', phone: '+14155550100' });
    expect(revealedLead.sources).toEqual(expect.arrayContaining(res.body.sources));
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
    const pattern = await reveal(ids.pattern);
    expect(pattern.body).toMatchObject({ status: 'revealed', email: 'alee@good.test', email_status: 'valid' });
    // an address made from the name and confirmed by the mail server cites the record the domain came from
    const emailSources = pattern.body.sources.filter((s: any) => s.field === 'email');
    expect(emailSources).toEqual([{ field: 'email', value: 'alee@good.test', provider: 'crawler', source_url: 'https://good.test/team', fetched_at: expect.any(String) }]);
    expect(Date.parse(emailSources[0].fetched_at)).toBeGreaterThan(Date.parse('2026-11-01T00:00:00.000Z'));
    expect((await lead(pattern.body.lead_id)).sources).toEqual(expect.arrayContaining(emailSources));
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

  it("a workspace created while billing is stopped is answered at once with credit_account pending; billing opens the account from the event when back, granted once", async () => {
    await mesh.stopApp('billing');
    let created;
    try {
      const asked = Date.now();
      created = await mesh.createWorkspace({ name: 'billing-down', planCredits: 9, packCredits: 0 });
      // nobody serves billing.accounts.open: NATS says so at once, no wait for the gateway's bound
      expect(Date.now() - asked).toBeLessThan(OPEN_ACCOUNT_WAIT_MS);
      expect(created).toMatchObject({ id: expect.stringMatching(/^ws_/), credit_account: 'pending' });
    } finally {
      await mesh.startApp('billing');
    }
    await waitFor('credit account opened from workspace.created', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [created.id])).length === 1, allowance(10_000));
    expect(await mesh.query('billing', "SELECT pool, amount FROM ledger_entries WHERE workspace_id = $1", [created.id])).toEqual([{ pool: 'plan', amount: 9 }]);
  });

  it('a claim whose claimer died mid-reveal is taken over once abandoned: its credit comes back, the reveal completes, one credit in all', async () => {
    const before = await total();
    // what a search SIGKILLed after its consume leaves: the credit taken, the claim pending
    const claim = 'rev_abandonedclaim';
    expect((await mesh.rpc(SUBJECTS.billing.creditsConsume, { workspace_id: ws }, { ref: claim, reason: 'reveal' })).err).toBeUndefined();
    await mesh.query('search', `INSERT INTO reveals (id, workspace_id, entity_id, status, credits_charged, created_at) VALUES ($1, $2, $3, 'pending', 0, now() - interval '10 minutes')`, [claim, ws, ids.abandoned]);
    expect(await total()).toBe(before - 1);
    const res = await reveal(ids.abandoned);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'revealed', credits_charged: 1, phone: '+14155550100' });
    expect(res.body.id).not.toBe(claim);
    expect(await total()).toBe(before - 1);
    expect(await mesh.query('billing', `SELECT type, amount, reason FROM ledger_entries WHERE workspace_id = $1 AND ref = $2 ORDER BY type`, [ws, claim])).toEqual([
      { type: 'consume', amount: -1, reason: 'reveal' }, { type: 'refund', amount: 1, reason: 'reveal_abandoned' },
    ]);
    expect(await mesh.query('search', 'SELECT id, status FROM reveals WHERE workspace_id = $1 AND entity_id = $2', [ws, ids.abandoned])).toEqual([{ id: res.body.id, status: 'revealed' }]);
  });

  it('a retry of a reveal whose claimer is alive but held up waits for its outcome: not run twice, its answer and one credit', async () => {
    const before = await total();
    const idempotencyKey = `heldup-${Date.now()}`;
    // a live search replica mid-reveal whose heartbeat is held up (its pool and event loop busy):
    // its liveness lock held on a session of its own, no fresh heartbeat, its consume made
    const owner = 'srch_heldupowner';
    const session = new Client({ connectionString: mesh.databaseUrl('search') });
    await session.connect();
    try {
      await session.query('SELECT pg_advisory_lock($1, hashtext($2))', [REVEAL_CLAIM_OWNERS.lockClass, owner]);
      const claim = 'rev_heldupclaim';
      expect((await mesh.rpc(SUBJECTS.billing.creditsConsume, { workspace_id: ws }, { ref: claim, reason: 'reveal' })).err).toBeUndefined();
      await mesh.query('search', `INSERT INTO reveals (id, workspace_id, entity_id, status, credits_charged, idempotency_key, owner, created_at)
        VALUES ($1, $2, $3, 'pending', 0, $4, $5, now() - interval '3 seconds')`, [claim, ws, ids.heldup, scopedServiceKey(keyId, idempotencyKey), owner]);
      // the same request asked again (the RPC client's next attempt, or the client after a 5xx)
      const retry = mesh.request('POST', '/reveals', { key, headers: { 'Idempotency-Key': idempotencyKey }, body: { entity_id: ids.heldup } });
      // longer than the owner's stale time: a retry that judged the claimer by its heartbeat took the claim over by now
      await new Promise((r) => setTimeout(r, CLAIM_OWNER_TIMING.staleAfterMs + 1500));
      // the held-up claimer finishes its reveal: its claim is still its own
      const done = await mesh.query('search', `UPDATE reveals SET status = 'revealed', credits_charged = 1, phone = '+14155550100', sources = (SELECT sources FROM entities WHERE id = $2)
        WHERE id = $1 AND status = 'pending' AND owner = $3 RETURNING id`, [claim, ids.heldup, owner]);
      expect(done).toEqual([{ id: claim }]);
      const res = await retry;
      expect(res.status).toBe(201);
      expectRealSources(res.body.sources);
      expect(res.body).toMatchObject({ id: claim, status: 'revealed', credits_charged: 1, already_revealed: false });
      expect(await mesh.query('billing', 'SELECT type, amount, reason FROM ledger_entries WHERE workspace_id = $1 AND ref = $2', [ws, claim])).toEqual([
        { type: 'consume', amount: -1, reason: 'reveal' },
      ]);
      expect(await total()).toBe(before - 1);
    } finally {
      await session.end();
    }
  });

  it('a claim whose owner is gone (its liveness session closed, no fresh heartbeat) is taken over at once by any reveal, not once abandoned', async () => {
    const before = await total();
    // what a search replica SIGKILLed after its consume leaves: a young claim, its credit taken, its owner's lock and heartbeat gone
    const claim = 'rev_ownergoneclaim';
    expect((await mesh.rpc(SUBJECTS.billing.creditsConsume, { workspace_id: ws }, { ref: claim, reason: 'reveal' })).err).toBeUndefined();
    await mesh.query('search', `INSERT INTO reveals (id, workspace_id, entity_id, status, credits_charged, idempotency_key, owner)
      VALUES ($1, $2, $3, 'pending', 0, 'live:another-request', 'srch_killedowner')`, [claim, ws, ids.ownergone]);
    const started = Date.now();
    const res = await reveal(ids.ownergone);
    expect(res.status).toBe(201);
    expect(Date.now() - started).toBeLessThan(allowance(5000));
    expect(res.body).toMatchObject({ status: 'revealed', credits_charged: 1, already_revealed: false });
    expect(res.body.id).not.toBe(claim);
    expect(await mesh.query('billing', 'SELECT type, amount, reason FROM ledger_entries WHERE workspace_id = $1 AND ref = $2 ORDER BY type', [ws, claim])).toEqual([
      { type: 'consume', amount: -1, reason: 'reveal' }, { type: 'refund', amount: 1, reason: 'reveal_abandoned' },
    ]);
    expect(await total()).toBe(before - 1);
  });

  it('a reveal of an entity in a lens the plan lacks is 403 on live and test keys: nothing charged, nothing written', async () => {
    const workspace = await mesh.createWorkspace({ name: 'no-investors', lenses: 'leads,researchers', planCredits: 10 });
    const live = (await mesh.key(workspace.id, 'live')).key as string;
    const test = (await mesh.key(workspace.id, 'test')).key as string;
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).length === 1, allowance(10_000));
    // the investors lens is refused by search too: a reveal cannot reach what search would not show
    expectApiError(await mesh.request('GET', '/search?lens=investors&q=Fund', { key: live }), 403, 'permission_denied', 'lens');
    for (const k of [live, test]) expectApiError(await reveal(ids.catchall, k), 403, 'permission_denied', 'entity_id');
    expect(await total(live)).toBe(10);
    expect(await mesh.query('search', 'SELECT 1 FROM reveals WHERE workspace_id = $1', [workspace.id])).toEqual([]);
    expect(await mesh.query('billing', `SELECT 1 FROM ledger_entries WHERE workspace_id = $1 AND type <> 'grant'`, [workspace.id])).toEqual([]);
    expect((await mesh.request('GET', '/leads', { key: live })).body.data).toEqual([]);
    // a lens on the plan is revealed as usual
    expect((await reveal(ids.worker, live)).body).toMatchObject({ status: 'revealed', email: 'wes@acme.test', credits_charged: 1 });
  });

  it('an address whose check could not be made is no contact: refunded, unrevealed, and a later reveal succeeds', async () => {
    const before = await total();
    const res = await reveal(ids.flaky);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'no_contact_found', credits_charged: 0, email: null, email_status: null, phone: null, lead_id: null });
    const ledger = await mesh.query('billing', 'SELECT type, amount, reason FROM ledger_entries WHERE ref = $1 ORDER BY type', [res.body.id]);
    expect(ledger).toEqual([{ type: 'consume', amount: -1, reason: 'reveal' }, { type: 'refund', amount: 1, reason: 'reveal_failed' }]);
    expect(await total()).toBe(before);
    const hits = await mesh.request('GET', '/search?lens=investors&q=Fay', { key });
    expect(hits.body.data.find((h: any) => h.entity_id === ids.flaky)).toMatchObject({ revealed: false, email_status: null });
    expect((await mesh.request('GET', '/leads?q=fay%40flaky.test', { key })).body.data).toEqual([]);

    // the resolver answers again: the same entity is revealed (the unknown outcome was not kept)
    zone.servfail = [];
    zone.mx!['flaky.test'] = ['mx.good.test'];
    const later = await reveal(ids.flaky);
    expect(later.status).toBe(201);
    expect(later.body).toMatchObject({ status: 'revealed', email: 'fay@flaky.test', email_status: 'valid', credits_charged: 1, already_revealed: false });
    expect(await total()).toBe(before - 2);
  });

  it('a known phone without a deliverable email is revealed with email null, the phone and its Source', async () => {
    const before = await total();
    const res = await reveal(ids.phoneonly);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'revealed', email: null, email_status: null, email_confidence: null, phone: '+14155550199', credits_charged: 1, lead_id: expect.stringMatching(/^lead_/),
    });
    expect(res.body.sources.filter((s: any) => s.field === 'email')).toEqual([]);
    expect(res.body.sources).toContainEqual({ field: 'phone', value: '+14155550199', provider: 'sec_edgar', source_url: 'https://www.sec.gov/x', fetched_at: '2026-11-01T00:00:00.000Z' });
    expect(await total()).toBe(before - 1);
    expect(await lead(res.body.lead_id)).toMatchObject({ revealed: true, email: null, email_status: null, phone: '+14155550199', full_name: 'Pat Hone' });
    const again = await reveal(ids.phoneonly);
    expect(again.body).toMatchObject({ id: res.body.id, status: 'revealed', already_revealed: true, credits_charged: 0, phone: '+14155550199', email: null });
  });

  it('the company of a revealed lead carries what the entity and the matching organisation record say, each with its Source', async () => {
    const res = await reveal(ids.worker);
    expect(res.body).toMatchObject({ status: 'revealed', email: 'wes@acme.test' });
    const revealed = await lead(res.body.lead_id);
    expect(revealed.company_id).toMatch(/^co_/);
    const company = (await mesh.request('GET', `/companies/${revealed.company_id}`, { key })).body;
    // the registry's record outranks the crawled page for what both say; the page fills what the registry lacks
    expect(company).toMatchObject({ name: 'Acme Test Ltd', domain: 'acme.test', industry: 'software development', size: '51-200', country: 'GB', city: 'London', description: null });
    expectRealSources(company.sources);
    const oc = 'https://opencorporates.com/companies/gb/01234567';
    expect(company.sources).toEqual(expect.arrayContaining([
      { field: 'industry', value: 'software development', provider: 'opencorporates', source_url: oc, fetched_at: '2026-10-03T00:00:00.000Z' },
      { field: 'country', value: 'GB', provider: 'opencorporates', source_url: oc, fetched_at: '2026-10-03T00:00:00.000Z' },
      { field: 'city', value: 'London', provider: 'opencorporates', source_url: oc, fetched_at: '2026-10-03T00:00:00.000Z' },
      { field: 'size', value: '51-200', provider: 'crawler', source_url: 'https://acme.test/team', fetched_at: '2026-10-02T00:00:00.000Z' },
    ]));
    expect((await mesh.request('GET', '/companies?country=gb', { key })).body.data.map((c: any) => c.id)).toEqual([company.id]);
  });

  it('ingestion refuses a Source with a provider outside the enumeration or without an http(s) URL', async () => {
    const bad = (source: Record<string, unknown>) => mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, {
      entities: [entity('badsource', { sources: [{ ...src[0], ...source }] })],
    });
    for (const [source, param] of [
      [{ provider: 'linkedin' }, 'entities[0].sources[0]'], [{ source_url: '' }, 'entities[0].sources[0]'], [{ source_url: '/x' }, 'entities[0].sources[0]'],
      [{ source_url: 'ftp://sec.gov/x' }, 'entities[0].sources[0]'],
    ] as const) {
      const res = await bad(source);
      expect(res.err).toMatchObject({ code: 'invalid_request', param });
    }
    expect(await mesh.query('search', `SELECT 1 FROM entities WHERE ext_key = 't:badsource'`)).toEqual([]);
  });
});
