import { CreditBalance, CreditPool, EventEnvelope, LedgerType, RequestContext } from '@app/contracts';
import { Tx, UnitOfWork } from '@app/platform';
import { BillingConfig } from '../billing.config';
import { CreditsService } from './credits.service';
import { AccountRow, ConsumeEntry, ConsumeGroupRow, LedgerRepository, LedgerRow, NewLedgerEntry } from './ledger.repository';

/**
 * CreditsService with LedgerRepository replaced by an in-memory ledger (one account row and its
 * entries) and a UnitOfWork that hands over a fake Tx recording the outbox inserts of
 * recordEvent. The group statement (billing_consume) answers 'fallback', so every consume goes
 * through the service's own rules; PostgreSQL's side is credits.module.integration-spec.ts.
 */
const ctx = { workspace_id: 'ws_1', livemode: true, api_version: '2026-09-28', plan: 'starter', request_id: 'req_1' } as RequestContext;

const config: BillingConfig = {
  planCredits: { free: 50, starter: 1000, growth: 5000, agency: 20000 },
  renewalEveryMs: 60_000,
  consumeGroup: { batchMax: 200, maxWaitMs: 2500 },
};

/** The repository's contract on one workspace, kept in memory. */
class InMemoryLedger {
  account?: AccountRow;
  entries: (LedgerRow & { workspace_id: string })[] = [];
  /** refunded_refs: `workspace:ref`. */
  closed = new Set<string>();
  private clock = Date.parse('2026-11-01T00:00:00Z');

  open(plan: number, pack: number): void {
    this.account = { workspace_id: 'ws_1', plan: 'starter', plan_balance: plan, pack_balance: pack, period_ends_at: new Date('2026-12-01T00:00:00Z'), low_notified_for: null, plan_leased: 0, pack_leased: 0 };
  }

  async lockAccount(_tx: unknown, workspaceId: string): Promise<AccountRow | undefined> {
    return this.account?.workspace_id === workspaceId ? { ...this.account } : undefined;
  }
  async findAccount(workspaceId: string): Promise<AccountRow | undefined> {
    return this.lockAccount(null, workspaceId);
  }
  async setBalances(_tx: unknown, account: AccountRow): Promise<void> {
    this.account = { ...account };
  }
  async insertEntry(_tx: unknown, workspaceId: string, entry: NewLedgerEntry): Promise<void> {
    this.entries.push({ ...entry, ref: entry.ref ?? null, workspace_id: workspaceId, object: 'ledger_entry', created_at: new Date(this.clock++) } as never);
  }
  async insertConsumes(tx: unknown, workspaceId: string, entries: ConsumeEntry[]): Promise<void> {
    for (const e of entries) await this.insertEntry(tx, workspaceId, { ...e, type: 'consume' });
  }
  async priorConsumes(_tx: unknown, workspaceId: string, refs: string[]): Promise<{ ref: string; amount: number }[]> {
    return this.entries.filter((e) => e.workspace_id === workspaceId && e.type === 'consume' && refs.includes(e.ref!)).map((e) => ({ ref: e.ref!, amount: e.amount }));
  }
  async refundedRefs(_tx: unknown, workspaceId: string, refs: string[]): Promise<Set<string>> {
    return new Set(refs.filter((ref) => this.closed.has(`${workspaceId}:${ref}`)));
  }
  async closeRef(_tx: unknown, workspaceId: string, ref: string): Promise<boolean> {
    const key = `${workspaceId}:${ref}`;
    if (this.closed.has(key)) return false;
    this.closed.add(key);
    return true;
  }
  async consumesAndRefundsOf(_tx: unknown, workspaceId: string, ref: string): Promise<{ type: LedgerType; amount: number; pool: CreditPool }[]> {
    return this.entries.filter((e) => e.workspace_id === workspaceId && e.ref === ref && (e.type === 'consume' || e.type === 'refund'));
  }
  async recentEntries(workspaceId: string): Promise<LedgerRow[]> {
    return this.entries.filter((e) => e.workspace_id === workspaceId).reverse().slice(0, 20);
  }
  async consumeGroup(): Promise<ConsumeGroupRow[]> {
    return [{ out_status: 'fallback', out_charged: 0, out_plan: 0, out_pack: 0 }];
  }
}

function setup(plan: number, pack: number) {
  const ledger = new InMemoryLedger();
  ledger.open(plan, pack);
  const outbox: EventEnvelope[] = [];
  const tx = {
    // a statement comes as text and values, or as one config object (a named statement)
    query: jest.fn(async (q: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
      const { text, values: given } = typeof q === 'string' ? { text: q, values } : q;
      if (text.includes('INSERT INTO outbox')) outbox.push(JSON.parse(given?.[2] as string));
      return { rows: [], rowCount: 1 };
    }),
  } as unknown as Tx;
  const uow = { run: jest.fn((work: (tx: Tx) => Promise<unknown>) => work(tx)) } as unknown as UnitOfWork;
  const service = new CreditsService(ledger as unknown as LedgerRepository, uow, config);
  const consume = (ref: string, amount = 1, reason = 'search_page') => service.consume(ctx, { ref, amount, reason });
  return { service, ledger, outbox, consume };
}

describe('CreditsService (in-memory ledger)', () => {
  it('plan credits are used before pack credits; a consume larger than the plan pool takes the rest from the pack', async () => {
    const { ledger, consume } = setup(3, 10);
    await expect(consume('ref_1', 2)).resolves.toEqual({ applied: true, charged: 2, balance: { plan: 1, pack: 10, total: 11 } });
    await expect(consume('ref_2', 4)).resolves.toEqual({ applied: true, charged: 4, balance: { plan: 0, pack: 7, total: 7 } });
    expect(ledger.entries.map((e) => [e.ref, e.type, e.pool, e.amount])).toEqual([
      ['ref_1', 'consume', 'plan', -2],
      ['ref_2', 'consume', 'plan', -1],
      ['ref_2', 'consume', 'pack', -3],
    ]);
    expect(ledger.account).toMatchObject({ plan_balance: 0, pack_balance: 7 });
  });

  it('a consume the balance cannot pay is 402 insufficient_credits and charges nothing; the consumes beside it in its group still apply', async () => {
    const { ledger, consume } = setup(2, 0);
    const [first, tooMuch, second] = await Promise.allSettled([consume('ref_1'), consume('ref_big', 5), consume('ref_2')]);
    expect(first).toMatchObject({ status: 'fulfilled', value: { applied: true, charged: 1 } });
    expect(tooMuch).toMatchObject({ status: 'rejected', reason: { code: 'insufficient_credits' } });
    expect(second).toMatchObject({ status: 'fulfilled', value: { applied: true, charged: 1, balance: { total: 0 } } });
    expect(ledger.entries.filter((e) => e.ref === 'ref_big')).toEqual([]);
    expect(ledger.account).toMatchObject({ plan_balance: 0, pack_balance: 0 });
  });

  it('the same ref consumed twice charges once: the second answer is applied false with what the first charged', async () => {
    const { ledger, consume } = setup(10, 0);
    await consume('ref_1', 3);
    await expect(consume('ref_1', 3)).resolves.toEqual({ applied: false, charged: 3, balance: { plan: 7, pack: 0, total: 7 } });
    expect(ledger.entries).toHaveLength(1);
  });

  it('credits.low is emitted once, when the total first falls below 10% of the plan\'s monthly credits, with the balance after that consume', async () => {
    const { consume, outbox } = setup(101, 0);
    await consume('ref_1');
    expect(outbox).toEqual([]);
    await consume('ref_2');
    await consume('ref_3');
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({ type: 'credits.low', data: { object: { object: 'credit_balance', balance: { plan: 99, pack: 0, total: 99 } } } });
    expect((outbox[0] as EventEnvelope<CreditBalance>).data.object.ledger[0]).toMatchObject({ ref: 'ref_2', type: 'consume', amount: -1 });
  });

  it('a refund gives back to the pools the consume took from, once', async () => {
    const { service, ledger, consume } = setup(1, 5);
    await consume('ref_1', 3);
    await expect(service.refund(ctx, { ref: 'ref_1', reason: 'reveal_failed' })).resolves.toEqual({ applied: true, refunded: 3 });
    expect(ledger.account).toMatchObject({ plan_balance: 1, pack_balance: 5 });
    expect(ledger.entries.filter((e) => e.type === 'refund').map((e) => [e.pool, e.amount, e.reason])).toEqual([
      ['plan', 1, 'reveal_failed'],
      ['pack', 2, 'reveal_failed'],
    ]);
    await expect(service.refund(ctx, { ref: 'ref_1', reason: 'reveal_failed' })).resolves.toEqual({ applied: false, refunded: 0 });
    await expect(service.refund(ctx, { ref: 'ref_never', reason: 'reveal_failed' })).resolves.toEqual({ applied: false, refunded: 0 });
    expect(ledger.account).toMatchObject({ plan_balance: 1, pack_balance: 5 });
  });

  it('a refund that finds no consume closes its ref: the consume that arrives after it charges nothing and answers refunded', async () => {
    const { service, ledger, consume } = setup(5, 0);
    await expect(service.refund(ctx, { ref: 'ref_late', reason: 'reveal_failed' })).resolves.toEqual({ applied: false, refunded: 0 });
    await expect(consume('ref_late')).resolves.toEqual({ applied: false, charged: 0, refunded: true, balance: { plan: 5, pack: 0, total: 5 } });
    await expect(consume('ref_late')).resolves.toEqual({ applied: false, charged: 0, refunded: true, balance: { plan: 5, pack: 0, total: 5 } });
    expect(ledger.entries).toEqual([]);
    expect(ledger.account).toMatchObject({ plan_balance: 5, pack_balance: 0 });
  });

  it('a consume of a ref after its refund charges nothing again: refunded, not the first consume\'s charge', async () => {
    const { service, ledger, consume } = setup(5, 0);
    await expect(consume('ref_1')).resolves.toMatchObject({ applied: true, charged: 1 });
    await expect(service.refund(ctx, { ref: 'ref_1', reason: 'reveal_failed' })).resolves.toEqual({ applied: true, refunded: 1 });
    await expect(consume('ref_1')).resolves.toEqual({ applied: false, charged: 0, refunded: true, balance: { plan: 5, pack: 0, total: 5 } });
    expect(ledger.entries.map((e) => [e.type, e.amount])).toEqual([['consume', -1], ['refund', 1]]);
    expect(ledger.account).toMatchObject({ plan_balance: 5, pack_balance: 0 });
  });

  it('a refunded ref takes nothing in a group, wherever it stands in it, and the consumes beside it apply', async () => {
    const { service, ledger, consume } = setup(5, 0);
    await service.refund(ctx, { ref: 'ref_gone', reason: 'search_failed' });
    const outcomes = await Promise.all([consume('ref_a'), consume('ref_gone'), consume('ref_b'), consume('ref_gone'), consume('ref_c')]);
    expect(outcomes.map((o) => [o.applied, o.charged, o.refunded ?? false])).toEqual([
      [true, 1, false], [false, 0, true], [true, 1, false], [false, 0, true], [true, 1, false],
    ]);
    expect(ledger.entries.map((e) => e.ref)).toEqual(['ref_a', 'ref_b', 'ref_c']);
    expect(ledger.account).toMatchObject({ plan_balance: 2, pack_balance: 0 });
  });

  it('a consume without a ref or with an amount that is not a positive integer is invalid_request naming the field, and charges nothing', async () => {
    const { service, ledger } = setup(10, 0);
    await expect(service.consume(ctx, { amount: 1 } as never)).rejects.toMatchObject({ code: 'invalid_request', param: 'ref' });
    await expect(service.consume(ctx, { ref: 'ref_1', amount: 0, reason: 'search_page' })).rejects.toMatchObject({ code: 'invalid_request', param: 'amount' });
    await expect(service.consume(ctx, { ref: 'ref_1', amount: 1.5, reason: 'search_page' })).rejects.toMatchObject({ code: 'invalid_request', param: 'amount' });
    expect(ledger.entries).toEqual([]);
  });

  it('a workspace without an account is 402 for a consume and 404 naming workspace for a grant', async () => {
    const { service, ledger } = setup(0, 0);
    ledger.account = undefined;
    await expect(service.consume(ctx, { ref: 'ref_1', reason: 'search_page' })).rejects.toMatchObject({ code: 'insufficient_credits' });
    await expect(service.grant(ctx, { pool: 'pack', amount: 10 } as never)).rejects.toMatchObject({ code: 'not_found', param: 'workspace' });
  });

  it('GET /credits: the balance with its newest entries first', async () => {
    const { service, consume } = setup(5, 2);
    await consume('ref_1');
    await consume('ref_2');
    const balance = await service.balance(ctx);
    expect(balance).toMatchObject({ object: 'credit_balance', plan: 'starter', balance: { plan: 3, pack: 2, total: 5 }, period_ends_at: '2026-12-01T00:00:00.000Z' });
    expect(balance.ledger.map((e) => e.ref)).toEqual(['ref_2', 'ref_1']);
  });
});
