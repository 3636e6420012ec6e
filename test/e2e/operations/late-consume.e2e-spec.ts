import { Msg } from '@nats-io/transport-node';
import { Client } from 'pg';
import { SUBJECTS } from '@app/contracts/subjects';
import { natsInboxPrefix } from '@app/contracts/nats-flows';
import { randomToken } from '@app/platform/ids';
import { TestMesh, meshHookTimeoutMs } from '../../harness';
import { waitFor } from '../../../tools/mesh/processes';
import { expectApiError } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

/**
 * Billing paused (SIGSTOP) past search's deadline while two reveals of one workspace each ask it
 * for a credit (issue 34, item 5). Search gives up on each consume at SEARCH_PEER_TIMEOUT_MS,
 * refunds its ref (the reveal's claim id) and answers internal_error ("nothing was charged");
 * billing, resumed, still receives both late consumes and both refunds, in that order. Its
 * consumes are group-committed per workspace, so the second consume waits in billing for the
 * first one's group while the refunds take the account's row lock straight away: a refund reaches
 * the lock before the consume it gives back. The account's row lock is held by the test while
 * billing resumes (what a slow group ahead of them does by chance), so that order is the same on
 * every run. A refund must win whatever the order: each failed claim nets zero. The reveal sent
 * with an Idempotency-Key is asked of search again by the gateway after the internal_error, the
 * one without is retried by the client after its 500: either way a new claim, so a new ref, charged
 * exactly one credit.
 */
const PEER_TIMEOUT_MS = 3000;

const src = [{ field: 'name', value: 'x', provider: 'sec_edgar', source_url: 'https://www.sec.gov/x', fetched_at: '2026-11-01T00:00:00.000Z' }];
const entity = (key: string) => ({
  ext_key: `t:${key}`, lens: 'investors', name: `Fund ${key}`, person_name: `Pat ${key}`,
  details: { stages: ['seed'], sectors: ['fintech'], check_size_usd: { min: 1, max: 2 }, last_filing_at: '2026-01-01' },
  facets: [], sources: src, phone: '+14155550100', country: 'US', organization: `Fund ${key}`,
});

interface Seen {
  ref: string;
  reply: string;
}

describe('a late credit consume after its refund (billing paused past search\'s deadline)', () => {
  let mesh: TestMesh;
  let ws: string;
  let key: string;
  const ids: Record<string, string> = {};
  const consumes: Seen[] = [];
  const refunds: Seen[] = [];
  /** Billing's answers to search, by reply subject (search stops listening at its deadline; they are read here). */
  const answers = new Map<string, { response?: any; err?: any }>();

  const billingPid = () => mesh.apps.get('billing')!.child.pid!;
  const resume = () => {
    const pid = mesh?.apps.get('billing')?.child.pid;
    if (pid) process.kill(pid, 'SIGCONT');
  };

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'billing', 'search', 'crm'], {
      SEARCH_PEER_TIMEOUT_MS: String(PEER_TIMEOUT_MS),
      // one attempt per request: the client sees search's own answer to the paused billing
      RPC_TIMEOUT_MS: '20000',
      RPC_ATTEMPT_TIMEOUT_MS: '60000',
    });
    expect((await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities: [entity('late_x'), entity('late_y')] })).err).toBeUndefined();
    for (const row of await mesh.query('search', 'SELECT id, ext_key FROM entities')) ids[row.ext_key.replace(/^t:/, '')] = row.id;
    const workspace = await mesh.createWorkspace({ name: 'late-consume', planCredits: 10 });
    ws = workspace.id;
    ({ key } = await mesh.key(ws, 'live'));
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [ws])).length === 1, allowance(10_000));

    // what search asks of billing and what billing answers, read beside them
    const nc = await mesh.natsClient();
    const record = (into: Seen[]) => (err: Error | null, msg: Msg) => {
      if (!err && msg.reply) into.push({ ref: msg.json<any>().data.body.ref, reply: msg.reply });
    };
    nc.subscribe(SUBJECTS.billing.creditsConsume, { callback: record(consumes) });
    nc.subscribe(SUBJECTS.billing.creditsRefund, { callback: record(refunds) });
    nc.subscribe(`${natsInboxPrefix('search')}.>`, {
      callback: (err, msg) => {
        if (!err) answers.set(msg.subject, msg.json());
      },
    });
    await nc.flush();
  }, meshHookTimeoutMs(4));
  afterAll(async () => {
    resume();
    await mesh?.close();
  });

  const total = async () => (await mesh.request('GET', '/credits', { key })).body.balance.total as number;
  const reveal = (entityId: string, idempotencyKey?: string) =>
    mesh.request('POST', '/reveals', { key, body: { entity_id: entityId }, headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {} });
  const distinct = (seen: Seen[]) => [...new Set(seen.map((s) => s.ref))].sort();

  it('refunds each failed reveal whatever order billing meets its consume and its refund in, and charges each retry once', async () => {
    const before = await total();
    expect(before).toBe(10);
    const keyX = `late-x-${randomToken(8)}`;
    let failedRefs: string[] = [];

    const lock = new Client({ connectionString: mesh.databaseUrl('billing') });
    await lock.connect();
    let x: ReturnType<typeof reveal>;
    let y: ReturnType<typeof reveal>;
    try {
      await lock.query('BEGIN');
      await lock.query('SELECT 1 FROM credit_accounts WHERE workspace_id = $1 FOR UPDATE', [ws]);
      process.kill(billingPid(), 'SIGSTOP');
      try {
        x = reveal(ids.late_x, keyX);
        await waitFor('the first consume sent', async () => consumes.length === 1, allowance(10_000), 10);
        y = reveal(ids.late_y);
        await waitFor('the second consume sent', async () => distinct(consumes).length === 2, allowance(10_000), 10);
        // search gave up on both consumes at its deadline and refunds their refs
        await waitFor('both refunds sent', async () => distinct(refunds).length === 2, 3 * PEER_TIMEOUT_MS, 10);
        failedRefs = distinct(refunds);
        expect(failedRefs).toEqual(distinct(consumes));
      } finally {
        resume();
      }
      // billing works off what it received: the first consume's group and the refunds' group wait
      // for the account (refunds of a workspace are group-committed since d7c17e5, as consumes are:
      // one transaction at the lock for the refunds that arrived together, not one each)
      await waitFor('billing waiting for the account', async () => {
        const [{ n }] = await mesh.query('billing', `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
        return n >= 2;
      }, allowance(10_000), 10);
    } finally {
      await lock.query('COMMIT').catch(() => undefined);
      await lock.end();
    }

    // with its Idempotency-Key, the gateway asked search again after the internal_error: a new claim, one credit
    const [keyed, unkeyed] = await Promise.all([x!, y!]);
    expect(keyed.status).toBe(201);
    expect(keyed.body).toMatchObject({ entity_id: ids.late_x, status: 'revealed', credits_charged: 1, already_revealed: false });
    expect(failedRefs).not.toContain(keyed.body.id);
    // without one, the client is told what the spec says for a failure that is safe to retry
    expectApiError(unkeyed, 500, 'internal_error');

    // billing answered every late consume and every refund: for each failed claim, either the
    // consume came first and its refund gave the credit back, or the refund came first and the
    // consume took nothing
    await waitFor('billing answered the late consumes and the refunds', async () => [...consumes, ...refunds].every((s) => answers.has(s.reply)), allowance(15_000), 20);
    for (const ref of failedRefs) {
      const consumed = consumes.filter((s) => s.ref === ref).map((s) => answers.get(s.reply)!);
      const refunded = refunds.filter((s) => s.ref === ref).map((s) => answers.get(s.reply)!);
      expect([...consumed, ...refunded].every((a) => a.err === undefined || a.err === null)).toBe(true);
      const charged = consumed.some((a) => a.response.applied === true);
      const gaveBack = refunded.reduce((sum, a) => sum + a.response.refunded, 0);
      expect({ ref, net: gaveBack - (charged ? 1 : 0) }).toEqual({ ref, net: 0 });
      if (!charged) expect(consumed.map((a) => a.response)).toEqual(consumed.map(() => expect.objectContaining({ applied: false, charged: 0, refunded: true })));
    }
    const nets = async (): Promise<Record<string, number>> => Object.fromEntries((await mesh.query('billing',
      'SELECT ref, sum(amount)::int AS net FROM ledger_entries WHERE workspace_id = $1 AND ref IS NOT NULL GROUP BY ref', [ws])).map((r) => [r.ref, r.net]));
    for (const ref of failedRefs) expect({ ref, net: (await nets())[ref] ?? 0 }).toEqual({ ref, net: 0 });
    expect(await total()).toBe(before - 1);

    // the client retries the request that failed: a new claim, charged once
    const retried = await reveal(ids.late_y);
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ entity_id: ids.late_y, status: 'revealed', credits_charged: 1, already_revealed: false });
    expect(failedRefs).not.toContain(retried.body.id);
    // and the keyed one again: its answer replayed, nothing charged
    const replay = await reveal(ids.late_x, keyX);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(keyed.body);
    const retries = [keyed, retried];
    // nothing left for search to give back, and the books end exact
    await waitFor('no refund queued in search', async () => (await mesh.query('search', 'SELECT 1 FROM pending_refunds')).length === 0, 3 * PEER_TIMEOUT_MS + allowance(10_000));
    expect(await total()).toBe(before - 2);
    const [books] = await mesh.query('billing',
      'SELECT (SELECT sum(amount)::int FROM ledger_entries WHERE workspace_id = $1) AS sum, plan_balance + pack_balance AS total FROM credit_accounts WHERE workspace_id = $1', [ws]);
    expect(books).toEqual({ sum: before - 2, total: before - 2 });
    const finalNets = await nets();
    for (const ref of failedRefs) expect(finalNets[ref] ?? 0).toBe(0);
    for (const retry of retries) expect(finalNets[retry.body.id]).toBe(-1);
    expect(Object.values(finalNets).reduce((a, b) => a + b, 0)).toBe(-2);
  });
});
