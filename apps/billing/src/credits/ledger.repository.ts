import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { CreditPool, LedgerEntry, LedgerType, Plan } from '@app/contracts';
import { PG_POOL, Queryable } from '@app/platform';

export interface AccountRow {
  workspace_id: string;
  plan: Plan;
  plan_balance: number;
  pack_balance: number;
  period_ends_at: Date | null;
  low_notified_for: Date | null;
  /** What open credit leases reserve of plan_balance and pack_balance (migration 0008). */
  plan_leased: number;
  pack_leased: number;
}

/** A credit lease (migration 0008): `amount` credits of `pool` reserved for search's pages while open. */
export interface LeaseRow {
  id: string;
  workspace_id: string;
  pool: CreditPool;
  amount: number;
  period_ends_at: Date | null;
  state: 'open' | 'settled';
  used: number | null;
  returned: number | null;
  expired: number | null;
}

/** A page charged against a lease, written as a consume of 1 credit at the time it was charged. */
export interface LeasePageEntry {
  id: string;
  ref: string;
  at: Date;
}

export interface LedgerRow extends Omit<LedgerEntry, 'created_at'> {
  created_at: Date;
}

export interface NewLedgerEntry {
  id: string;
  type: LedgerType;
  amount: number;
  reason: string;
  ref?: string | null;
  pool: CreditPool;
}

/** A consume's entry, written with the others of its group in one INSERT. */
export interface ConsumeEntry {
  id: string;
  amount: number;
  reason: string;
  ref: string;
  pool: CreditPool;
}

/** The consumes of one group as billing_consume takes them: parallel arrays, in arrival order. */
export interface ConsumeGroup {
  refs: string[];
  amounts: number[];
  reasons: string[];
  planEntryIds: string[];
  packEntryIds: string[];
  /** The plans' monthly credits as JSON, for billing_consume's credits.low threshold. */
  planCreditsJson: string;
}

/** billing_consume's answer: 'fallback' or 'no_account' alone, else one row per consume. */
export interface ConsumeGroupRow {
  out_status: 'applied' | 'already' | 'refunded' | 'insufficient' | 'fallback' | 'no_account';
  out_charged: number;
  out_plan: number;
  out_pack: number;
}

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

/**
 * Every statement on credit_accounts and ledger_entries. A `db` argument is the transaction the
 * caller holds the account's row lock in; without one, a statement runs on the pool.
 */
@Injectable()
export class LedgerRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** The account's row lock (FOR UPDATE): every change to a balance is made under it. */
  async lockAccount(tx: Queryable, workspaceId: string): Promise<AccountRow | undefined> {
    const { rows } = await tx.query<AccountRow>('SELECT * FROM credit_accounts WHERE workspace_id = $1 FOR UPDATE', [workspaceId]);
    return rows[0];
  }

  async findAccount(workspaceId: string): Promise<AccountRow | undefined> {
    const { rows } = await this.pool.query<AccountRow>('SELECT * FROM credit_accounts WHERE workspace_id = $1', [workspaceId]);
    return rows[0];
  }

  /** Hand-written as a named statement: written by every consume, refund and grant, planned once per connection. */
  async setBalances(tx: Queryable, account: AccountRow): Promise<void> {
    await tx.query({
      name: 'billing-set-balances',
      text: 'UPDATE credit_accounts SET plan_balance = $2, pack_balance = $3, period_ends_at = $4, low_notified_for = $5, plan_leased = $6, pack_leased = $7 WHERE workspace_id = $1',
      values: [account.workspace_id, account.plan_balance, account.pack_balance, account.period_ends_at, account.low_notified_for, account.plan_leased, account.pack_leased],
    });
  }

  async insertEntry(tx: Queryable, workspaceId: string, entry: NewLedgerEntry): Promise<void> {
    await tx.query('INSERT INTO ledger_entries (id, workspace_id, type, amount, reason, ref, pool) VALUES ($1,$2,$3,$4,$5,$6,$7)', [
      entry.id, workspaceId, entry.type, entry.amount, entry.reason, entry.ref ?? null, entry.pool,
    ]);
  }

  /** The latest entries, shown with a balance. */
  async recentEntries(workspaceId: string, db: Queryable = this.pool): Promise<LedgerRow[]> {
    const { rows } = await db.query<LedgerRow>(
      'SELECT id, type, amount, reason, ref, pool, created_at FROM ledger_entries WHERE workspace_id = $1 ORDER BY id DESC LIMIT 20',
      [workspaceId],
    );
    return rows;
  }

  /**
   * A group of consumes in one statement, billing_consume (migration 0004). Hand-written: one
   * round trip holds the account's row lock for one statement instead of six (BEGIN, lock,
   * earlier refs, INSERT, UPDATE, COMMIT), which is what makes the group commit pay; named, so
   * it is planned once per connection.
   */
  async consumeGroup(workspaceId: string, group: ConsumeGroup): Promise<ConsumeGroupRow[]> {
    const { rows } = await this.pool.query<ConsumeGroupRow>({
      name: 'billing-consume',
      text: 'SELECT out_status, out_charged, out_plan, out_pack FROM billing_consume($1, $2, $3, $4, $5, $6, $7)',
      values: [workspaceId, group.refs, group.amounts, group.reasons, group.planEntryIds, group.packEntryIds, group.planCreditsJson],
    });
    return rows;
  }

  /**
   * What each ref already consumed (one row per entry, amounts negative). Hand-written as a
   * named statement whose shape keeps its plan on the refs (CONSUME_PRIOR_SQL).
   */
  async priorConsumes(tx: Queryable, workspaceId: string, refs: string[]): Promise<{ ref: string; amount: number }[]> {
    const { rows } = await tx.query<{ ref: string; amount: number }>({ name: 'billing-consume-prior', text: CONSUME_PRIOR_SQL, values: [workspaceId, refs] });
    return rows;
  }

  /** Hand-written: a group's consume entries in one INSERT over unnest, a named statement planned once per connection. */
  async insertConsumes(tx: Queryable, workspaceId: string, entries: ConsumeEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await tx.query({
      name: 'billing-consume-insert',
      text: `INSERT INTO ledger_entries (id, workspace_id, type, amount, reason, ref, pool)
       SELECT id, $1, 'consume', amount, reason, ref, pool FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[]) AS t(id, amount, reason, ref, pool)`,
      values: [workspaceId, entries.map((e) => e.id), entries.map((e) => e.amount), entries.map((e) => e.reason), entries.map((e) => e.ref), entries.map((e) => e.pool)],
    });
  }

  /**
   * The refs among `refs` a refund was asked for (refunded_refs, migration 0007): a consume of
   * one takes nothing. Read under the account's row lock, which every refund holds while it
   * closes a ref.
   */
  async refundedRefs(tx: Queryable, workspaceId: string, refs: string[]): Promise<Set<string>> {
    const { rows } = await tx.query<{ ref: string }>({
      name: 'billing-refunded-refs',
      text: 'SELECT ref FROM refunded_refs WHERE ref = ANY($2::text[]) AND workspace_id = $1',
      values: [workspaceId, refs],
    });
    return new Set(rows.map((row) => row.ref));
  }

  /**
   * Closes a ref to consumes, whether or not one was made: false when a refund closed it before.
   * Hand-written ON CONFLICT DO NOTHING: a refund's retry finds the ref closed in one statement.
   */
  async closeRef(tx: Queryable, workspaceId: string, ref: string): Promise<boolean> {
    const closed = await tx.query('INSERT INTO refunded_refs (ref, workspace_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [ref, workspaceId]);
    return closed.rowCount === 1;
  }

  /** A ref's consumes and refunds. Hand-written like CONSUME_PRIOR_SQL: OFFSET 0 keeps the read on the ref's index. */
  async consumesAndRefundsOf(tx: Queryable, workspaceId: string, ref: string): Promise<{ type: LedgerType; amount: number; pool: CreditPool }[]> {
    const { rows } = await tx.query<{ type: LedgerType; amount: number; pool: CreditPool }>(
      `SELECT type, amount, pool FROM (SELECT * FROM ledger_entries WHERE ref = $2 AND type IN ('consume', 'refund') OFFSET 0) l WHERE l.workspace_id = $1`,
      [workspaceId, ref],
    );
    return rows;
  }

  /** A lease by its id, read under the account's row lock (every change to a lease is made under it). */
  async findLease(tx: Queryable, leaseId: string): Promise<LeaseRow | undefined> {
    const { rows } = await tx.query<LeaseRow>('SELECT id, workspace_id, pool, amount, period_ends_at, state, used, returned, expired FROM credit_leases WHERE id = $1', [leaseId]);
    return rows[0];
  }

  async insertLease(tx: Queryable, lease: Omit<LeaseRow, 'used' | 'returned' | 'expired'>): Promise<void> {
    await tx.query(
      'INSERT INTO credit_leases (id, workspace_id, pool, amount, period_ends_at, state, settled_at) VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $6 = \'settled\' THEN now() END)',
      [lease.id, lease.workspace_id, lease.pool, lease.amount, lease.period_ends_at, lease.state],
    );
  }

  async markLeaseSettled(tx: Queryable, leaseId: string, used: number, returned: number, expired: number): Promise<void> {
    await tx.query(`UPDATE credit_leases SET state = 'settled', used = $2, returned = $3, expired = $4, settled_at = now() WHERE id = $1`, [leaseId, used, returned, expired]);
  }

  /** Hand-written: a lease's pages as consumes of 1 credit each in one INSERT over unnest, each at the time search charged it. */
  async insertLeasePages(tx: Queryable, workspaceId: string, pool: CreditPool, pages: LeasePageEntry[]): Promise<void> {
    if (pages.length === 0) return;
    await tx.query(
      `INSERT INTO ledger_entries (id, workspace_id, type, amount, reason, ref, pool, created_at)
       SELECT id, $1, 'consume', -1, 'search_page', ref, $2, at FROM unnest($3::text[], $4::text[], $5::timestamptz[]) AS t(id, ref, at)`,
      [workspaceId, pool, pages.map((p) => p.id), pages.map((p) => p.ref), pages.map((p) => p.at)],
    );
  }

  /** The end of the period after `current`: a month on from it, or from now when it is past or unset. */
  async nextPeriodEnd(tx: Queryable, current: Date | null): Promise<Date> {
    const { rows } = await tx.query<{ next: Date }>(
      `SELECT greatest(coalesce($1::timestamptz, now()), now()) + interval '1 month' AS next`, [current],
    );
    return rows[0].next;
  }

  async dueForRenewal(limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ workspace_id: string }>(
      'SELECT workspace_id FROM credit_accounts WHERE period_ends_at <= now() ORDER BY period_ends_at LIMIT $1', [limit],
    );
    return rows.map((r) => r.workspace_id);
  }

  /** Hand-written FOR UPDATE SKIP LOCKED: an account another replica is renewing is left to it. */
  async lockDueForRenewal(tx: Queryable, workspaceId: string): Promise<AccountRow | undefined> {
    const { rows } = await tx.query<AccountRow>(
      'SELECT * FROM credit_accounts WHERE workspace_id = $1 AND period_ends_at <= now() FOR UPDATE SKIP LOCKED', [workspaceId],
    );
    return rows[0];
  }

  /**
   * A new account with its first period, or false when it exists already (its balances then
   * stay as they are). Hand-written ON CONFLICT DO NOTHING: two deliveries of one event race.
   */
  async insertAccount(tx: Queryable, workspaceId: string, plan: Plan, planBalance: number, packBalance: number): Promise<boolean> {
    const created = await tx.query(
      `INSERT INTO credit_accounts (workspace_id, plan, plan_balance, pack_balance, period_ends_at)
       VALUES ($1, $2, $3, $4, now() + interval '1 month')
       ON CONFLICT (workspace_id) DO NOTHING`,
      [workspaceId, plan, planBalance, packBalance],
    );
    return created.rowCount === 1;
  }
}
