import { TestMesh, meshHookTimeoutMs } from '../../harness';
import { waitFor } from '../../../tools/mesh/processes';
import { expectApiError } from '../../support/gateway-assertions';
import { allowance } from '../../support/timing';

/**
 * Search pages paid from a per-workspace credit lease (issue 37, item 2): search charges each
 * page against a block of credits billing reserved, in its own database before it answers, and
 * settles the lease with billing when it is idle, past its time, full, or when GET /credits asks.
 * What must hold: exactly as many pages as credits, 402 for the rest; the balance + what open
 * leases reserve = the ledger at every moment, and after settlement the balance and the ledger are
 * what they would be had each page been consumed at billing; a search process SIGKILLed while it
 * holds a lease loses nothing and charges nothing twice. The mesh's settings make the waits short:
 * a lease is charged against for 3 s at most (SEARCH_LEASE_TTL_MS), returned after 600 ms without
 * a page (SEARCH_LEASE_IDLE_MS), and every search process sweeps every 100 ms.
 */
const LEASE_TTL_MS = 3000;
const LEASE_IDLE_MS = 600;

describe('credit leases of search pages', () => {
  let mesh: TestMesh;

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'billing', 'search'], {
      SEARCH_LEASE_TTL_MS: String(LEASE_TTL_MS), SEARCH_LEASE_IDLE_MS: String(LEASE_IDLE_MS), SEARCH_LEASE_SWEEP_MS: '100',
      // 200 pages at once from one key: the per-key budget is not what is tested here
      RATE_LIMIT_PER_MINUTE: '10000',
    });
    expect(await mesh.admin('search:seed', '--count', '300')).toMatchObject({ inserted: 300 });
  }, meshHookTimeoutMs(3));
  afterAll(() => mesh?.close());

  async function account(plan: number) {
    const workspace = await mesh.createWorkspace({ name: 'leases', planCredits: plan });
    const { key } = await mesh.key(workspace.id, 'live');
    await waitFor('credit account', async () => (await mesh.query('billing', 'SELECT 1 FROM credit_accounts WHERE workspace_id = $1', [workspace.id])).length === 1, allowance(10_000));
    return { ws: workspace.id as string, key: key as string };
  }
  const page = (key: string, n = 1) => mesh.request('GET', `/search?lens=leads&page=${n}`, { key });
  /** Billing's books of a workspace: balance, what open leases reserve, the ledger's sum, its page consumes by ref. */
  async function books(ws: string) {
    const [a] = await mesh.query('billing', `SELECT plan_balance + pack_balance AS balance, plan_leased + pack_leased AS leased,
      (SELECT coalesce(sum(amount), 0)::int FROM credit_leases WHERE workspace_id = $1 AND state = 'open') AS open_leases,
      (SELECT coalesce(sum(amount), 0)::int FROM ledger_entries WHERE workspace_id = $1) AS ledger FROM credit_accounts WHERE workspace_id = $1`, [ws]);
    const pages = await mesh.query('billing', `SELECT ref, count(*)::int AS n, sum(amount)::int AS amount FROM ledger_entries
      WHERE workspace_id = $1 AND type = 'consume' AND reason = 'search_page' GROUP BY ref`, [ws]);
    // the balance is the ledger's sum at every moment; what open leases reserve is part of it
    expect(a.balance).toBe(a.ledger);
    expect(a.leased).toBe(a.open_leases);
    for (const p of pages) expect([p.n, p.amount]).toEqual([1, -1]);
    return { balance: a.balance as number, leased: a.leased as number, refs: new Set(pages.map((p) => p.ref as string)) };
  }
  const refOf = (res: { headers: Headers }) => `search:${res.headers.get('request-id')}`;

  it('200 pages at once against 100 credits: exactly 100 pages and 100 × 402, each page charged once, the books exact', async () => {
    const { ws, key } = await account(100);
    const results = await Promise.all(Array.from({ length: 200 }, () => page(key)));
    const served = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(served).toHaveLength(100);
    expect(refused).toHaveLength(100);
    for (const r of refused) expectApiError(r, 402, 'insufficient_credits');
    for (const r of served) expect(r.body).toMatchObject({ credits_charged: 1, livemode: true });
    // GET /credits settles what is leased first: the balance and ledger as if every page had been consumed at billing
    const shown = await mesh.request('GET', '/credits', { key });
    expect(shown.status).toBe(200);
    expect(shown.body.balance).toEqual({ plan: 0, pack: 0, total: 0 });
    expect(shown.body).not.toHaveProperty('leased');
    expect(shown.body.ledger[0]).toMatchObject({ type: 'consume', amount: -1, reason: 'search_page', pool: 'plan', ref: expect.stringMatching(/^search:req_/) });
    const { balance, leased, refs } = await books(ws);
    expect([balance, leased]).toEqual([0, 0]);
    expect([...refs].sort()).toEqual(served.map(refOf).sort());
    // and one more page is refused, charging nothing
    expectApiError(await page(key), 402, 'insufficient_credits');
    expect((await books(ws)).refs.size).toBe(100);
  });

  it('the last credit buys the last page; the balance never goes below zero', async () => {
    const { ws, key } = await account(1);
    expect((await page(key)).status).toBe(200);
    expectApiError(await page(key), 402, 'insufficient_credits');
    expect((await mesh.request('GET', '/credits', { key })).body.balance.total).toBe(0);
    expect(await books(ws)).toMatchObject({ balance: 0, leased: 0 });
  });

  it('a lease is returned when idle: its pages settled as consumes and the rest back in the balance, with nobody asking', async () => {
    const { ws, key } = await account(40);
    const served = [await page(key), await page(key, 2), await page(key, 3)];
    for (const r of served) expect(r.status).toBe(200);
    // the pages are search's record until the lease is settled; billing holds the lease's credits reserved
    const [lease] = await mesh.query('billing', `SELECT amount, state FROM credit_leases WHERE workspace_id = $1 ORDER BY created_at`, [ws]);
    expect(lease.amount).toBeGreaterThanOrEqual(1);
    // no request of the workspace after these: the lease goes back by itself once idle (600 ms)
    await waitFor('the idle lease settled', async () => (await mesh.query('billing', `SELECT 1 FROM credit_leases WHERE workspace_id = $1 AND state = 'open'`, [ws])).length === 0, LEASE_IDLE_MS + allowance(14_400), 50);
    const { balance, leased, refs } = await books(ws);
    expect([balance, leased]).toEqual([37, 0]);
    expect([...refs].sort()).toEqual(served.map(refOf).sort());
    expect(await mesh.query('search', `SELECT state FROM credit_leases WHERE workspace_id = $1 AND state <> 'settled'`, [ws])).toEqual([]);
  });

  it('test keys are never charged and take no lease', async () => {
    const { ws } = await account(5);
    const { key: testKey } = await mesh.key(ws, 'test');
    expect((await page(testKey)).body).toMatchObject({ credits_charged: 0, livemode: false });
    expect(await mesh.query('search', 'SELECT 1 FROM credit_leases WHERE workspace_id = $1', [ws])).toEqual([]);
    expect(await books(ws)).toMatchObject({ balance: 5, leased: 0 });
  });

  it('a search process SIGKILLed while it holds a lease: the lease is settled from what it recorded, nothing lost, nothing charged twice', async () => {
    const { ws, key } = await account(60);
    const before = [await page(key), await page(key, 2)];
    for (const r of before) expect(r.status).toBe(200);
    // pages arriving while search dies: some answered, some not; whatever search committed before it died is charged once
    const burst = Array.from({ length: 12 }, (_, i) => page(key, 3 + i));
    await waitFor('pages charged in the burst', async () => (await mesh.query('search', 'SELECT count(*)::int AS n FROM credit_lease_pages WHERE workspace_id = $1', [ws]))[0].n >= 6, allowance(15_000), 5);
    await mesh.killApp('search');
    const answered = await Promise.all(burst);
    expect((await mesh.query('billing', `SELECT 1 FROM credit_leases WHERE workspace_id = $1 AND state = 'open'`, [ws])).length).toBeGreaterThan(0);
    const recorded = (await mesh.query('search', 'SELECT ref FROM credit_lease_pages WHERE workspace_id = $1 AND NOT refunded', [ws])).map((r) => r.ref as string);
    // another search process (the dead one's memory gone) settles the lease once it has expired
    await mesh.startApp('search');
    await waitFor('the dead process\'s lease settled', async () => (await mesh.query('billing', `SELECT 1 FROM credit_leases WHERE workspace_id = $1 AND state = 'open'`, [ws])).length === 0, LEASE_TTL_MS + allowance(17_000), 50);
    const { balance, leased, refs } = await books(ws);
    expect(leased).toBe(0);
    expect([...refs].sort()).toEqual([...recorded].sort());
    expect(balance).toBe(60 - recorded.length);
    // every page answered 200 was charged, exactly once
    for (const r of [...before, ...answered].filter((x) => x.status === 200)) expect(refs.has(refOf(r))).toBe(true);
    // and pages are served and charged again
    expect((await page(key)).status).toBe(200);
    expect((await mesh.request('GET', '/credits', { key })).body.balance.total).toBe(60 - recorded.length - 1);
  });
});
