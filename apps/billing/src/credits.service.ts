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
    await tx.query('UPDATE credit_accounts SET plan_balance = $2, pack_balance = $3, period_ends_at = $4, low_notified_for = $5 WHERE workspace_id = $1', [
      account.workspace_id, account.plan_balance, account.pack_balance, account.period_ends_at, account.low_notified_for,
    ]);
  }

  async consume(ctx: RequestContext, request: ConsumeCreditsRequest): Promise<ConsumeCreditsResult> {
    const ref = request?.ref;
    const amount = request?.amount ?? 1;
    if (typeof ref !== 'string' || ref === '' || ref.length > 255) throw DomainError.invalid('ref', 'ref is required');
    if (!Number.isInteger(amount) || amount < 1 || amount > MAX_AMOUNT) throw DomainError.invalid('amount', 'amount must be a positive integer');
    const reason = typeof request.reason === 'string' && request.reason ? request.reason.slice(0, 100) : 'consume';
    return withTransaction(this.pool, async (tx) => {
      const account = await this.lock(tx, ctx.workspace_id);
      const balance = () => ({ plan: account.plan_balance, pack: account.pack_balance, total: account.plan_balance + account.pack_balance });
      const prior = await tx.query<{ amount: number }>(
        `SELECT amount FROM ledger_entries WHERE workspace_id = $1 AND type = 'consume' AND ref = $2`, [ctx.workspace_id, ref],
      );
      if (prior.rows.length > 0) return { applied: false, charged: -prior.rows.reduce((s, r) => s + r.amount, 0), balance: balance() };
      if (account.plan_balance + account.pack_balance < amount) {
        throw new DomainError('insufficient_credits', `Not enough credits: ${amount} needed, ${account.plan_balance + account.pack_balance} left`);
      }
      const fromPlan = Math.min(account.plan_balance, amount);
      const fromPack = amount - fromPlan;
      if (fromPlan > 0) await this.entry(tx, ctx.workspace_id, { type: 'consume', amount: -fromPlan, reason, ref, pool: 'plan' });
      if (fromPack > 0) await this.entry(tx, ctx.workspace_id, { type: 'consume', amount: -fromPack, reason, ref, pool: 'pack' });
      account.plan_balance -= fromPlan;
      account.pack_balance -= fromPack;
      await this.maybeLow(tx, ctx, account);
      await this.setBalances(tx, account);
      return { applied: true, charged: amount, balance: balance() };
    });
  }

  async refund(ctx: RequestContext, request: RefundCreditsRequest): Promise<RefundCreditsResult> {
    const ref = request?.ref;
    if (typeof ref !== 'string' || ref === '') throw DomainError.invalid('ref', 'ref is required');
    const reason = typeof request.reason === 'string' && request.reason ? request.reason.slice(0, 100) : 'refund';
    return withTransaction(this.pool, async (tx) => {
      const account = await this.lock(tx, ctx.workspace_id);
      const { rows } = await tx.query<{ type: LedgerType; amount: number; pool: CreditPool }>(
        `SELECT type, amount, pool FROM ledger_entries WHERE workspace_id = $1 AND type IN ('consume', 'refund') AND ref = $2`, [ctx.workspace_id, ref],
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
  private async maybeLow(tx: Queryable, ctx: RequestContext, account: AccountRow): Promise<void> {
    const monthly = this.config.planCredits[account.plan] ?? 0;
    const total = account.plan_balance + account.pack_balance;
    if (monthly <= 0 || total * 10 >= monthly) return;
    const period = account.period_ends_at?.getTime() ?? 0;
    if (account.low_notified_for && account.low_notified_for.getTime() === period) return;
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
