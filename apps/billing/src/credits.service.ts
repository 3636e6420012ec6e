import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import {
  ConsumeCreditsRequest, ConsumeCreditsResult, CreditBalance, CreditPool, CREDIT_POOLS, EVENT, GrantCreditsRequest, ID_PREFIX, LedgerEntry,
  LedgerType, Plan, RefundCreditsRequest, RefundCreditsResult, RequestContext,
} from '@app/contracts';
import { DomainError, newId, PG_POOL, Queryable, recordEvent, withTransaction } from '@app/platform';
import { BillingConfig } from './billing.config';

export const BILLING_CONFIG = Symbol('BILLING_CONFIG');

interface AccountRow {
  workspace_id: string;
  plan: Plan;
  plan_balance: number;
  pack_balance: number;
  period_ends_at: Date | null;
  low_notified_for: Date | null;
}

interface LedgerRow extends Omit<LedgerEntry, 'created_at'> {
  created_at: Date;
}

const MAX_AMOUNT = 1_000_000_000;

/**
 * The consumes already taken for some refs ($2) of a workspace ($1). The refs are the only
 * condition the inner read can descend by (OFFSET 0 keeps the workspace's condition out of it):
 * with `workspace_id = $1` beside them, a plan made on stale statistics walked every consume of
 * the workspace by ledger_entries_workspace or (workspace_id, type) and filtered them, a cost
 * that grew with the ledger (migration 0003). Refs are unique per request, so a ref's entries of
 * other workspaces are rare.
 */
export const CONSUME_PRIOR_SQL = `SELECT ref, amount FROM (SELECT workspace_id, ref, amount FROM ledger_entries WHERE ref = ANY($2::text[]) AND type = 'consume' OFFSET 0) l
  WHERE l.workspace_id = $1`;
/** At most this many consumes of one workspace share a transaction. */
const CONSUME_BATCH_MAX = Number(process.env.BILLING_CONSUME_BATCH_MAX || 200);
/**
 * A consume that waited longer than this in the process for its group is refused, not applied:
 * its caller (5 s time-out) is about to give up and refund the ref, and a refund must never
 * overtake the consume it gives back (the refund would find nothing, the consume would then take
 * a credit for a page nobody got).
 */
const CONSUME_MAX_WAIT_MS = Number(process.env.BILLING_CONSUME_MAX_WAIT_MS || 2500);

interface ConsumeItem {
  queuedAt: number;
  ctx: RequestContext;
  ref: string;
  amount: number;
  reason: string;
  resolve: (result: ConsumeCreditsResult) => void;
  reject: (err: unknown) => void;
}

interface PendingEntry {
  id: string;
  amount: number;
  reason: string;
  ref: string;
  pool: CreditPool;
}

function renderEntry(row: LedgerRow): LedgerEntry {
  return { id: row.id, type: row.type, amount: row.amount, reason: row.reason, ref: row.ref, pool: row.pool, created_at: row.created_at.toISOString() };
}

/**
 * Credit accounts: every change takes the account's row lock (SELECT … FOR UPDATE) and writes
 * the balance and its ledger entries in one transaction, so the balance is always the sum of
 * its ledger and the CHECK constraints keep it from going negative.
 */
@Injectable()
export class CreditsService {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(BILLING_CONFIG) private readonly config: BillingConfig,
  ) {}

  private async lock(tx: Queryable, workspaceId: string): Promise<AccountRow> {
    const { rows } = await tx.query<AccountRow>('SELECT * FROM credit_accounts WHERE workspace_id = $1 FOR UPDATE', [workspaceId]);
    if (!rows[0]) throw new DomainError('insufficient_credits', 'This workspace has no credit account yet');
    return rows[0];
  }

  private async entry(tx: Queryable, workspaceId: string, e: { type: LedgerType; amount: number; reason: string; ref?: string | null; pool: CreditPool }, at = Date.now()) {
    await tx.query('INSERT INTO ledger_entries (id, workspace_id, type, amount, reason, ref, pool) VALUES ($1,$2,$3,$4,$5,$6,$7)', [
      newId(ID_PREFIX.ledgerEntry, at), workspaceId, e.type, e.amount, e.reason, e.ref ?? null, e.pool,
    ]);
  }

  private async setBalances(tx: Queryable, account: AccountRow): Promise<void> {
    await tx.query({
      name: 'billing-set-balances',
      text: 'UPDATE credit_accounts SET plan_balance = $2, pack_balance = $3, period_ends_at = $4, low_notified_for = $5 WHERE workspace_id = $1',
      values: [account.workspace_id, account.plan_balance, account.pack_balance, account.period_ends_at, account.low_notified_for],
    });
  }

  /**
   * Consumes are grouped per workspace (group commit): while one transaction holds the account's
   * row lock, the consumes that arrive for that workspace wait in this process and are then
   * applied together in one transaction — one lock, one ledger INSERT, one balance UPDATE, one
   * commit for the lot, each with its own outcome. The rules are those of a single consume,
   * applied in arrival order: a ref already consumed takes nothing (`applied: false`), a consume
   * the balance cannot pay is 402 and takes nothing, plan before pack, credits.low once.
   */
  private readonly consumeQueues = new Map<string, ConsumeItem[]>();

  async consume(ctx: RequestContext, request: ConsumeCreditsRequest): Promise<ConsumeCreditsResult> {
    const ref = request?.ref;
    const amount = request?.amount ?? 1;
    if (typeof ref !== 'string' || ref === '' || ref.length > 255) throw DomainError.invalid('ref', 'ref is required');
    if (!Number.isInteger(amount) || amount < 1 || amount > MAX_AMOUNT) throw DomainError.invalid('amount', 'amount must be a positive integer');
    const reason = typeof request.reason === 'string' && request.reason ? request.reason.slice(0, 100) : 'consume';
    return new Promise<ConsumeCreditsResult>((resolve, reject) => {
      const item: ConsumeItem = { queuedAt: Date.now(), ctx, ref, amount, reason, resolve, reject };
      const queue = this.consumeQueues.get(ctx.workspace_id);
      if (queue) {
        queue.push(item);
        return;
      }
      const fresh = [item];
      this.consumeQueues.set(ctx.workspace_id, fresh);
      void this.drainConsumes(ctx.workspace_id, fresh);
    });
  }

  private async drainConsumes(workspaceId: string, queue: ConsumeItem[]): Promise<void> {
    try {
      while (queue.length > 0) {
        const now = Date.now();
        const batch: ConsumeItem[] = [];
        for (const item of queue.splice(0, CONSUME_BATCH_MAX)) {
          if (now - item.queuedAt <= CONSUME_MAX_WAIT_MS) batch.push(item);
          else item.reject(new DomainError('internal_error', 'billing was too busy to take the credit; nothing was charged'));
        }
        if (batch.length === 0) continue;
        try {
          const outcomes = (await this.consumeAtOnce(workspaceId, batch)) ?? (await withTransaction(this.pool, (tx) => this.consumeLocked(tx, workspaceId, batch)));
          batch.forEach((item, i) => {
            const outcome = outcomes[i];
            if (outcome instanceof Error) item.reject(outcome);
            else item.resolve(outcome);
          });
        } catch (err) {
          if (batch.length === 1 || err instanceof DomainError) {
            for (const item of batch) item.reject(err);
            continue;
          }
          // an unexpected failure of a group: each consume on its own, so one cannot fail the others
          for (const item of batch) {
            await withTransaction(this.pool, (tx) => this.consumeLocked(tx, workspaceId, [item])).then(
              ([outcome]) => (outcome instanceof Error ? item.reject(outcome) : item.resolve(outcome)),
              (e: Error) => item.reject(e),
            );
          }
        }
      }
    } finally {
      if (this.consumeQueues.get(workspaceId) === queue) this.consumeQueues.delete(workspaceId);
    }
  }

  /**
   * A group of consumes in one statement, billing_consume (migration 0004): the rules of
   * consumeLocked in one round trip instead of six (BEGIN, lock, earlier refs, INSERT, UPDATE,
   * COMMIT), so the account's row is locked for one statement and a group's wait behind the one
   * before it is short. Undefined when the group brings credits.low due (the function wrote
   * nothing): consumeLocked applies it and emits the event.
   */
  private async consumeAtOnce(workspaceId: string, batch: ConsumeItem[]): Promise<(ConsumeCreditsResult | DomainError)[] | undefined> {
    const at = Date.now();
    const { rows } = await this.pool.query<{ out_status: string; out_charged: number; out_plan: number; out_pack: number }>({
      name: 'billing-consume',
      text: 'SELECT out_status, out_charged, out_plan, out_pack FROM billing_consume($1, $2, $3, $4, $5, $6, $7)',
      values: [
        workspaceId,
        batch.map((item) => item.ref),
        batch.map((item) => item.amount),
        batch.map((item) => item.reason),
        batch.map(() => newId(ID_PREFIX.ledgerEntry, at)),
        batch.map(() => newId(ID_PREFIX.ledgerEntry, at)),
        (this.planCreditsJson ??= JSON.stringify(this.config.planCredits)),
      ],
    });
    if (rows[0]?.out_status === 'fallback') return undefined;
    if (rows[0]?.out_status === 'no_account') throw new DomainError('insufficient_credits', 'This workspace has no credit account yet');
    if (rows.length !== batch.length) throw new Error(`billing_consume answered ${rows.length} outcomes for ${batch.length} consumes`);
    return rows.map((row, i) => {
      const balance = { plan: row.out_plan, pack: row.out_pack, total: row.out_plan + row.out_pack };
      if (row.out_status === 'insufficient') return new DomainError('insufficient_credits', `Not enough credits: ${batch[i].amount} needed, ${balance.total} left`);
      return { applied: row.out_status === 'applied', charged: row.out_charged, balance };
    });
  }

  private planCreditsJson?: string;

  /** Applies consumes of one workspace in order under the account's row lock; one outcome per consume. */
  private async consumeLocked(tx: Queryable, workspaceId: string, batch: ConsumeItem[]): Promise<(ConsumeCreditsResult | DomainError)[]> {
    const account = await this.lock(tx, workspaceId);
    const balance = () => ({ plan: account.plan_balance, pack: account.pack_balance, total: account.plan_balance + account.pack_balance });
    // the statements of a consume are named: planned once per connection, not per group
    const { rows: prior } = await tx.query<{ ref: string; amount: number }>({
      name: 'billing-consume-prior',
      text: CONSUME_PRIOR_SQL,
      values: [workspaceId, [...new Set(batch.map((item) => item.ref))]],
    });
    const taken = new Map<string, number>();
    for (const row of prior) taken.set(row.ref, (taken.get(row.ref) ?? 0) - row.amount);
    const pending: PendingEntry[] = [];
    const at = Date.now();
    const outcomes: (ConsumeCreditsResult | DomainError)[] = [];
    for (const item of batch) {
      const charged = taken.get(item.ref);
      if (charged !== undefined) {
        outcomes.push({ applied: false, charged, balance: balance() });
        continue;
      }
      const total = account.plan_balance + account.pack_balance;
      if (total < item.amount) {
        outcomes.push(new DomainError('insufficient_credits', `Not enough credits: ${item.amount} needed, ${total} left`));
        continue;
      }
      const fromPlan = Math.min(account.plan_balance, item.amount);
      const fromPack = item.amount - fromPlan;
      if (fromPlan > 0) pending.push({ id: newId(ID_PREFIX.ledgerEntry, at), amount: -fromPlan, reason: item.reason, ref: item.ref, pool: 'plan' });
      if (fromPack > 0) pending.push({ id: newId(ID_PREFIX.ledgerEntry, at), amount: -fromPack, reason: item.reason, ref: item.ref, pool: 'pack' });
      account.plan_balance -= fromPlan;
      account.pack_balance -= fromPack;
      taken.set(item.ref, item.amount);
      if (this.lowDue(account)) {
        // credits.low carries the balance with this consume's entries: write them first
        await this.insertConsumes(tx, workspaceId, pending.splice(0));
        await this.maybeLow(tx, item.ctx, account);
      }
      outcomes.push({ applied: true, charged: item.amount, balance: balance() });
    }
    await this.insertConsumes(tx, workspaceId, pending);
    if (outcomes.some((o) => !(o instanceof Error) && o.applied)) await this.setBalances(tx, account);
    return outcomes;
  }

  private async insertConsumes(tx: Queryable, workspaceId: string, entries: PendingEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await tx.query({
      name: 'billing-consume-insert',
      text: `INSERT INTO ledger_entries (id, workspace_id, type, amount, reason, ref, pool)
       SELECT id, $1, 'consume', amount, reason, ref, pool FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[]) AS t(id, amount, reason, ref, pool)`,
      values: [workspaceId, entries.map((e) => e.id), entries.map((e) => e.amount), entries.map((e) => e.reason), entries.map((e) => e.ref), entries.map((e) => e.pool)],
    });
  }

  async refund(ctx: RequestContext, request: RefundCreditsRequest): Promise<RefundCreditsResult> {
    const ref = request?.ref;
    if (typeof ref !== 'string' || ref === '') throw DomainError.invalid('ref', 'ref is required');
    const reason = typeof request.reason === 'string' && request.reason ? request.reason.slice(0, 100) : 'refund';
    return withTransaction(this.pool, async (tx) => {
      const account = await this.lock(tx, ctx.workspace_id);
      const { rows } = await tx.query<{ type: LedgerType; amount: number; pool: CreditPool }>(
        `SELECT type, amount, pool FROM (SELECT * FROM ledger_entries WHERE ref = $2 AND type IN ('consume', 'refund') OFFSET 0) l WHERE l.workspace_id = $1`,
        [ctx.workspace_id, ref],
      );
      const consumed = rows.filter((r) => r.type === 'consume');
      if (consumed.length === 0 || rows.some((r) => r.type === 'refund')) return { applied: false, refunded: 0 };
      let refunded = 0;
      for (const c of consumed) {
        await this.entry(tx, ctx.workspace_id, { type: 'refund', amount: -c.amount, reason, ref, pool: c.pool });
        if (c.pool === 'plan') account.plan_balance -= c.amount;
        else account.pack_balance -= c.amount;
        refunded -= c.amount;
      }
      await this.setBalances(tx, account);
      return { applied: true, refunded };
    });
  }

  async balance(ctx: RequestContext): Promise<CreditBalance> {
    const { rows } = await this.pool.query<AccountRow>('SELECT * FROM credit_accounts WHERE workspace_id = $1', [ctx.workspace_id]);
    const account = rows[0] ?? { workspace_id: ctx.workspace_id, plan: ctx.plan, plan_balance: 0, pack_balance: 0, period_ends_at: null, low_notified_for: null };
    return this.render(this.pool, account);
  }

  private async render(q: Queryable, account: AccountRow): Promise<CreditBalance> {
    const ledger = await q.query<LedgerRow>(
      'SELECT id, type, amount, reason, ref, pool, created_at FROM ledger_entries WHERE workspace_id = $1 ORDER BY id DESC LIMIT 20',
      [account.workspace_id],
    );
    return {
      object: 'credit_balance',
      plan: account.plan,
      balance: { plan: account.plan_balance, pack: account.pack_balance, total: account.plan_balance + account.pack_balance },
      period_ends_at: account.period_ends_at ? account.period_ends_at.toISOString() : null,
      ledger: ledger.rows.map(renderEntry),
    };
  }

  /** credits.low once per period: the first time the total falls below 10% of the plan's monthly credits. */
  private lowDue(account: AccountRow): boolean {
    const monthly = this.config.planCredits[account.plan] ?? 0;
    const total = account.plan_balance + account.pack_balance;
    if (monthly <= 0 || total * 10 >= monthly) return false;
    const period = account.period_ends_at?.getTime() ?? 0;
    return !(account.low_notified_for && account.low_notified_for.getTime() === period);
  }

  private async maybeLow(tx: Queryable, ctx: RequestContext, account: AccountRow): Promise<void> {
    if (!this.lowDue(account)) return;
    account.low_notified_for = account.period_ends_at ?? new Date(0);
    await this.setBalances(tx, account);
    const object = await this.render(tx, account);
    await recordEvent(tx, { type: EVENT.creditsLow, workspace_id: account.workspace_id, livemode: ctx.livemode ?? true, api_version: ctx.api_version, object });
  }

  async grant(ctx: RequestContext, request: GrantCreditsRequest): Promise<CreditBalance> {
    const pool = request?.pool;
    const amount = request?.amount;
    if (!CREDIT_POOLS.includes(pool)) throw DomainError.invalid('pool', 'pool must be plan or pack');
    if (!Number.isInteger(amount) || amount < 1 || amount > MAX_AMOUNT) throw DomainError.invalid('amount', 'amount must be a positive integer');
    const reason = request.reason || (pool === 'pack' ? `pack_${amount}` : 'manual_grant');
    return withTransaction(this.pool, async (tx) => {
      const account = await this.lock(tx, ctx.workspace_id).catch((err) => {
        if (err instanceof DomainError) throw DomainError.notFound('credit account', ctx.workspace_id, 'workspace');
        throw err;
      });
      await this.entry(tx, ctx.workspace_id, { type: pool === 'pack' && reason.startsWith('pack_') ? 'purchase' : 'grant', amount, reason, pool });
      if (pool === 'plan') account.plan_balance += amount;
      else account.pack_balance += amount;
      await this.setBalances(tx, account);
      return this.render(tx, account);
    });
  }

  async renew(ctx: RequestContext): Promise<CreditBalance> {
    return withTransaction(this.pool, async (tx) => {
      const account = await this.lock(tx, ctx.workspace_id).catch((err) => {
        if (err instanceof DomainError) throw DomainError.notFound('credit account', ctx.workspace_id, 'workspace');
        throw err;
      });
      await this.renewLocked(tx, account);
      return this.render(tx, account);
    });
  }

  /** Expires what is left of the plan pool and grants the plan's monthly credits; the period moves on a month. */
  private async renewLocked(tx: Queryable, account: AccountRow): Promise<void> {
    const at = Date.now();
    if (account.plan_balance > 0) {
      await this.entry(tx, account.workspace_id, { type: 'expire', amount: -account.plan_balance, reason: 'plan_renewal', pool: 'plan' }, at);
    }
    const monthly = this.config.planCredits[account.plan] ?? 0;
    if (monthly > 0) await this.entry(tx, account.workspace_id, { type: 'grant', amount: monthly, reason: 'plan_renewal', pool: 'plan' }, at + 1);
    account.plan_balance = monthly;
    const { rows } = await tx.query<{ next: Date }>(
      `SELECT greatest(coalesce($1::timestamptz, now()), now()) + interval '1 month' AS next`, [account.period_ends_at],
    );
    account.period_ends_at = rows[0].next;
    await this.setBalances(tx, account);
  }

  /** The renewal job: every account whose period has ended, one transaction each. */
  async renewDue(limit = 100): Promise<number> {
    const { rows } = await this.pool.query<{ workspace_id: string }>(
      'SELECT workspace_id FROM credit_accounts WHERE period_ends_at <= now() ORDER BY period_ends_at LIMIT $1', [limit],
    );
    for (const { workspace_id } of rows) {
      await withTransaction(this.pool, async (tx) => {
        const { rows: locked } = await tx.query<AccountRow>(
          'SELECT * FROM credit_accounts WHERE workspace_id = $1 AND period_ends_at <= now() FOR UPDATE SKIP LOCKED', [workspace_id],
        );
        if (locked[0]) await this.renewLocked(tx, locked[0]);
      });
    }
    return rows.length;
  }
}
