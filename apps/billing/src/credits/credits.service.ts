import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import {
  ConsumeCreditsRequest, ConsumeCreditsResult, CreditBalance, CreditPool, CREDIT_POOLS, EVENT, GrantCreditsRequest, ID_PREFIX,
  LeaseCreditsRequest, LeaseCreditsResult, OpenAccountRequest, OpenedAccount, Plan, PLANS, RefundCreditsRequest, RefundCreditsResult, RequestContext, SettleLeaseRequest, SettleLeaseResult,
} from '@app/contracts';
import { DomainError, newId, Queryable, recordEvent, runPeriodically, UnitOfWork } from '@app/platform';
import { BILLING_CONFIG, BillingConfig } from '../billing.config';
import { GroupCommitQueue } from './group-commit-queue';
import { renderEntry } from './ledger.mapper';
import { AccountRow, ConsumeEntry, LeasePageEntry, LedgerRepository, NewLedgerEntry } from './ledger.repository';

const MAX_AMOUNT = 1_000_000_000;
/** The most credits one lease may ask for, and the most pages one settle may carry. */
export const MAX_LEASE = 100_000;

/** The credits of each pool no open lease reserves: what a consume or a new lease may take. */
const spare = (account: AccountRow) => ({ plan: account.plan_balance - account.plan_leased, pack: account.pack_balance - account.pack_leased });

/** A balance as the API shows it with what open leases reserve of it (billing.credits.balance answers it; the gateway keeps `leased` to itself). */
export type LeasedCreditBalance = CreditBalance & { leased?: number };

/** A workspace's opening balances, from its workspace.created event or the gateway's billing.accounts.open. */
export interface OpeningBalance {
  workspace_id: string;
  plan: AccountRow['plan'];
  plan_credits: number;
  pack_credits: number;
}

const MAX_CREDITS = 2_147_483_647; // the int columns' ceiling

function isCredits(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_CREDITS;
}

/** The opening another service sent (an event's data, a request's body), checked rather than trusted; undefined when malformed. */
export function toOpeningBalance(data: Partial<Record<keyof OpeningBalance, unknown>> | undefined): OpeningBalance | undefined {
  if (!data || typeof data.workspace_id !== 'string' || data.workspace_id === '') return undefined;
  if (!PLANS.includes(data.plan as Plan) || !isCredits(data.plan_credits) || !isCredits(data.pack_credits)) return undefined;
  return { workspace_id: data.workspace_id, plan: data.plan as Plan, plan_credits: data.plan_credits, pack_credits: data.pack_credits };
}

interface ConsumeItem {
  ctx: RequestContext;
  ref: string;
  amount: number;
  reason: string;
}

type ConsumeOutcome = ConsumeCreditsResult | DomainError;

interface RefundItem {
  ref: string;
  reason: string;
}

/**
 * A refund waits for its group as long as it takes: unlike a consume (refused after
 * `maxWaitMs`: its caller charges nothing), a refund refused would leave a credit charged that its
 * caller was told was given back.
 */
const REFUND_MAX_WAIT_MS = Number.POSITIVE_INFINITY;

/** A consume of a ref a refund was asked for: nothing taken. */
const refundedConsume = (balance: ConsumeCreditsResult['balance']): ConsumeCreditsResult => ({ applied: false, charged: 0, refunded: true, balance });

/**
 * Credit accounts: every change takes the account's row lock (SELECT … FOR UPDATE) and writes
 * the balance and its ledger entries in one transaction, so the balance is always the sum of
 * its ledger and the CHECK constraints keep it from going negative. Also the period renewal job.
 */
@Injectable()
export class CreditsService implements OnApplicationBootstrap, OnApplicationShutdown {
  /**
   * Consumes are grouped per workspace (group commit): one lock, one ledger INSERT, one balance
   * UPDATE, one commit for the lot, each with its own outcome. The rules are those of a single
   * consume, applied in arrival order: a ref a refund was asked for takes nothing (`refunded`),
   * a ref already consumed takes nothing (`applied: false`), a consume the balance cannot pay is
   * 402 and takes nothing, plan before pack, credits.low once.
   */
  private readonly consumes: GroupCommitQueue<ConsumeItem, ConsumeCreditsResult>;
  /**
   * Refunds are grouped per workspace the same way (one lock, one balance UPDATE, one commit for
   * the lot; each ref's rules as a refund alone, in arrival order): a refund per reveal that found
   * no contact, each its own transaction on the account's row, queued 8-16 connections behind
   * that row on a disk whose commits wait on two fsyncs (docs/decisions.md, "Refunds in groups").
   */
  private readonly refunds: GroupCommitQueue<RefundItem, RefundCreditsResult>;
  private planCreditsJson?: string;
  private stopRenewals?: () => void;

  constructor(
    private readonly ledger: LedgerRepository,
    private readonly uow: UnitOfWork,
    @Inject(BILLING_CONFIG) private readonly config: BillingConfig,
  ) {
    this.consumes = new GroupCommitQueue<ConsumeItem, ConsumeCreditsResult>(
      async (workspaceId, batch) => (await this.consumeAtOnce(workspaceId, batch)) ?? this.consumeInTransaction(workspaceId, batch),
      (workspaceId, batch) => this.consumeInTransaction(workspaceId, batch),
      config.consumeGroup,
    );
    const refundGroup = (workspaceId: string, batch: RefundItem[]) => this.uow.run((tx) => this.refundLocked(tx, workspaceId, batch));
    this.refunds = new GroupCommitQueue<RefundItem, RefundCreditsResult>(refundGroup, refundGroup, { batchMax: config.consumeGroup.batchMax, maxWaitMs: REFUND_MAX_WAIT_MS });
  }

  onApplicationBootstrap(): void {
    this.stopRenewals = runPeriodically(() => this.renewDue(), this.config.renewalEveryMs);
  }

  onApplicationShutdown(): void {
    this.stopRenewals?.();
  }

  private async lock(tx: Queryable, workspaceId: string): Promise<AccountRow> {
    const account = await this.ledger.lockAccount(tx, workspaceId);
    if (!account) throw new DomainError('insufficient_credits', 'This workspace has no credit account yet');
    return account;
  }

  private async entry(tx: Queryable, workspaceId: string, e: Omit<NewLedgerEntry, 'id'>, at = Date.now()): Promise<void> {
    await this.ledger.insertEntry(tx, workspaceId, { id: newId(ID_PREFIX.ledgerEntry, at), ...e });
  }

  async consume(ctx: RequestContext, request: ConsumeCreditsRequest): Promise<ConsumeCreditsResult> {
    const ref = request?.ref;
    const amount = request?.amount ?? 1;
    if (typeof ref !== 'string' || ref === '' || ref.length > 255) throw DomainError.invalid('ref', 'ref is required');
    if (!Number.isInteger(amount) || amount < 1 || amount > MAX_AMOUNT) throw DomainError.invalid('amount', 'amount must be a positive integer');
    const reason = typeof request.reason === 'string' && request.reason ? request.reason.slice(0, 100) : 'consume';
    return this.consumes.add(ctx.workspace_id, { ctx, ref, amount, reason });
  }

  /**
   * A group in one statement (billing_consume): the rules of consumeLocked, the account's row
   * locked for one statement, so a group's wait behind the one before it is short. Undefined
   * when the group brings credits.low due (the function wrote nothing): consumeLocked applies it
   * and emits the event.
   */
  private async consumeAtOnce(workspaceId: string, batch: ConsumeItem[]): Promise<ConsumeOutcome[] | undefined> {
    const at = Date.now();
    const rows = await this.ledger.consumeGroup(workspaceId, {
      refs: batch.map((item) => item.ref),
      amounts: batch.map((item) => item.amount),
      reasons: batch.map((item) => item.reason),
      planEntryIds: batch.map(() => newId(ID_PREFIX.ledgerEntry, at)),
      packEntryIds: batch.map(() => newId(ID_PREFIX.ledgerEntry, at)),
      planCreditsJson: (this.planCreditsJson ??= JSON.stringify(this.config.planCredits)),
    });
    if (rows[0]?.out_status === 'fallback') return undefined;
    if (rows[0]?.out_status === 'no_account') throw new DomainError('insufficient_credits', 'This workspace has no credit account yet');
    if (rows.length !== batch.length) throw new Error(`billing_consume answered ${rows.length} outcomes for ${batch.length} consumes`);
    return rows.map((row, i) => {
      const balance = { plan: row.out_plan, pack: row.out_pack, total: row.out_plan + row.out_pack };
      if (row.out_status === 'insufficient') return new DomainError('insufficient_credits', `Not enough credits: ${batch[i].amount} needed, ${balance.total} left`);
      if (row.out_status === 'refunded') return refundedConsume(balance);
      return { applied: row.out_status === 'applied', charged: row.out_charged, balance };
    });
  }

  private consumeInTransaction(workspaceId: string, batch: ConsumeItem[]): Promise<ConsumeOutcome[]> {
    return this.uow.run((tx) => this.consumeLocked(tx, workspaceId, batch));
  }

  /** Applies consumes of one workspace in order under the account's row lock; one outcome per consume. */
  private async consumeLocked(tx: Queryable, workspaceId: string, batch: ConsumeItem[]): Promise<ConsumeOutcome[]> {
    const account = await this.lock(tx, workspaceId);
    const balance = () => ({ plan: account.plan_balance, pack: account.pack_balance, total: account.plan_balance + account.pack_balance });
    const refs = [...new Set(batch.map((item) => item.ref))];
    const refunded = await this.ledger.refundedRefs(tx, workspaceId, refs);
    const prior = await this.ledger.priorConsumes(tx, workspaceId, refs);
    const taken = new Map<string, number>();
    for (const row of prior) taken.set(row.ref, (taken.get(row.ref) ?? 0) - row.amount);
    const pending: ConsumeEntry[] = [];
    const at = Date.now();
    const outcomes: ConsumeOutcome[] = [];
    for (const item of batch) {
      if (refunded.has(item.ref)) {
        outcomes.push(refundedConsume(balance()));
        continue;
      }
      const charged = taken.get(item.ref);
      if (charged !== undefined) {
        outcomes.push({ applied: false, charged, balance: balance() });
        continue;
      }
      const free = spare(account);
      const total = free.plan + free.pack;
      if (total < item.amount) {
        outcomes.push(new DomainError('insufficient_credits', `Not enough credits: ${item.amount} needed, ${total} left`));
        continue;
      }
      const fromPlan = Math.min(free.plan, item.amount);
      const fromPack = item.amount - fromPlan;
      if (fromPlan > 0) pending.push({ id: newId(ID_PREFIX.ledgerEntry, at), amount: -fromPlan, reason: item.reason, ref: item.ref, pool: 'plan' });
      if (fromPack > 0) pending.push({ id: newId(ID_PREFIX.ledgerEntry, at), amount: -fromPack, reason: item.reason, ref: item.ref, pool: 'pack' });
      account.plan_balance -= fromPlan;
      account.pack_balance -= fromPack;
      taken.set(item.ref, item.amount);
      if (this.lowDue(account)) {
        // credits.low carries the balance with this consume's entries: write them first
        await this.ledger.insertConsumes(tx, workspaceId, pending.splice(0));
        await this.maybeLow(tx, item.ctx, account);
      }
      outcomes.push({ applied: true, charged: item.amount, balance: balance() });
    }
    await this.ledger.insertConsumes(tx, workspaceId, pending);
    if (outcomes.some((o) => !(o instanceof Error) && o.applied)) await this.ledger.setBalances(tx, account);
    return outcomes;
  }

  /**
   * Gives back what the ref's consume took, once, and closes the ref under the account's row lock
   * whether or not the consume is there yet: a consume of the ref that billing meets after this
   * (one its caller gave up on, arriving late; a retry) takes nothing. So a refund wins over its
   * consume in either order, and a caller told "nothing was charged" is never charged for the ref.
   */
  async refund(ctx: RequestContext, request: RefundCreditsRequest): Promise<RefundCreditsResult> {
    const ref = request?.ref;
    if (typeof ref !== 'string' || ref === '' || ref.length > 255) throw DomainError.invalid('ref', 'ref is required');
    const reason = typeof request.reason === 'string' && request.reason ? request.reason.slice(0, 100) : 'refund';
    return this.refunds.add(ctx.workspace_id, { ref, reason });
  }

  /** Applies refunds of one workspace in order under the account's row lock; one outcome per refund. */
  private async refundLocked(tx: Queryable, workspaceId: string, batch: RefundItem[]): Promise<RefundCreditsResult[]> {
    const account = await this.lock(tx, workspaceId);
    const outcomes: RefundCreditsResult[] = [];
    for (const { ref, reason } of batch) {
      const first = await this.ledger.closeRef(tx, workspaceId, ref);
      const rows = await this.ledger.consumesAndRefundsOf(tx, workspaceId, ref);
      const consumed = rows.filter((r) => r.type === 'consume');
      if (!first || consumed.length === 0 || rows.some((r) => r.type === 'refund')) {
        outcomes.push({ applied: false, refunded: 0 });
        continue;
      }
      let refunded = 0;
      for (const c of consumed) {
        await this.entry(tx, workspaceId, { type: 'refund', amount: -c.amount, reason, ref, pool: c.pool });
        if (c.pool === 'plan') account.plan_balance -= c.amount;
        else account.pack_balance -= c.amount;
        refunded -= c.amount;
      }
      outcomes.push({ applied: true, refunded });
    }
    if (outcomes.some((o) => o.applied)) await this.ledger.setBalances(tx, account);
    return outcomes;
  }

  /**
   * The balance and the newest entries; `leased` (what open leases reserve) when there is an open
   * lease, for the gateway, which asks search to settle the workspace's leases and asks again.
   */
  async balance(ctx: RequestContext): Promise<LeasedCreditBalance> {
    const account = (await this.ledger.findAccount(ctx.workspace_id))
      ?? { workspace_id: ctx.workspace_id, plan: ctx.plan, plan_balance: 0, pack_balance: 0, period_ends_at: null, low_notified_for: null, plan_leased: 0, pack_leased: 0 };
    const rendered: LeasedCreditBalance = await this.render(account);
    const leased = account.plan_leased + account.pack_leased;
    if (leased > 0) rendered.leased = leased;
    return rendered;
  }

  /**
   * A credit lease for search's pages: up to `want` credits of one pool (plan while any is spare,
   * else pack), at most half of what that pool has spare (rounded up, so a last credit is leased
   * too), so that a reveal or another replica still finds credits while a lease is young. Reserved
   * under the account's row lock (plan_leased / pack_leased), nothing charged. Asked again, the
   * same lease; asked after its settle (a late request), nothing. A period that has ended is
   * renewed first, as the renewal job would: a lease never spans a renewal it was taken before.
   */
  async lease(ctx: RequestContext, request: LeaseCreditsRequest): Promise<LeaseCreditsResult> {
    const leaseId = request?.lease_id;
    const want = request?.want;
    if (typeof leaseId !== 'string' || leaseId === '' || leaseId.length > 255) throw DomainError.invalid('lease_id', 'lease_id is required');
    if (!Number.isInteger(want) || want < 1 || want > MAX_LEASE) throw DomainError.invalid('want', `want must be an integer from 1 to ${MAX_LEASE}`);
    return this.uow.run(async (tx) => {
      const account = await this.ledger.lockAccount(tx, ctx.workspace_id);
      if (!account) return { lease_id: leaseId, granted: 0, pool: null, leased: 0, expires_in_ms: null };
      const leasedNow = () => account.plan_leased + account.pack_leased;
      const expiresIn = () => (account.period_ends_at ? Math.max(0, account.period_ends_at.getTime() - Date.now()) : null);
      const existing = await this.ledger.findLease(tx, leaseId);
      if (existing) {
        if (existing.workspace_id !== ctx.workspace_id) throw DomainError.invalid('lease_id', 'lease_id is taken');
        if (existing.state !== 'open') return { lease_id: leaseId, granted: 0, pool: null, leased: leasedNow(), expires_in_ms: null, closed: true };
        return { lease_id: leaseId, granted: existing.amount, pool: existing.pool, leased: leasedNow(), expires_in_ms: expiresIn() };
      }
      if (account.period_ends_at && account.period_ends_at.getTime() <= Date.now()) await this.renewLocked(tx, account);
      const free = spare(account);
      const pool: CreditPool | null = free.plan > 0 ? 'plan' : free.pack > 0 ? 'pack' : null;
      if (!pool) return { lease_id: leaseId, granted: 0, pool: null, leased: leasedNow(), expires_in_ms: null };
      const granted = Math.min(want, Math.ceil(free[pool] / 2));
      await this.ledger.insertLease(tx, { id: leaseId, workspace_id: ctx.workspace_id, pool, amount: granted, period_ends_at: account.period_ends_at, state: 'open' });
      if (pool === 'plan') account.plan_leased += granted;
      else account.pack_leased += granted;
      await this.ledger.setBalances(tx, account);
      return { lease_id: leaseId, granted, pool, leased: leasedNow(), expires_in_ms: expiresIn() };
    });
  }

  /**
   * Ends a lease with the pages search charged against it (search's record, docs/decisions.md
   * "Credit leases"): each page a consume of 1 credit from the lease's pool at the time it was
   * charged, unless its ref was refunded (refunded_refs) or is in the ledger already; the rest
   * returned to the pool, or expired when the lease's plan period has ended since. A lease never
   * taken is closed (settled with nothing), so a late request for it leases nothing. Settled
   * again, the first outcome. More pages than the lease holds is search's record being wrong:
   * refused, the lease left open.
   */
  async settleLease(ctx: RequestContext, request: SettleLeaseRequest): Promise<SettleLeaseResult> {
    const leaseId = request?.lease_id;
    const pages = request?.pages;
    if (typeof leaseId !== 'string' || leaseId === '' || leaseId.length > 255) throw DomainError.invalid('lease_id', 'lease_id is required');
    if (!Array.isArray(pages) || pages.length > MAX_LEASE) throw DomainError.invalid('pages', 'pages must be an array');
    const charged: { ref: string; at: Date }[] = [];
    for (const page of pages) {
      const at = new Date(page?.at);
      if (typeof page?.ref !== 'string' || page.ref === '' || page.ref.length > 255 || Number.isNaN(at.getTime())) throw DomainError.invalid('pages', 'each page has a ref and a time');
      charged.push({ ref: page.ref, at });
    }
    return this.uow.run(async (tx) => {
      const account = await this.ledger.lockAccount(tx, ctx.workspace_id);
      const lease = await this.ledger.findLease(tx, leaseId);
      if (!lease) {
        await this.ledger.insertLease(tx, { id: leaseId, workspace_id: ctx.workspace_id, pool: 'plan', amount: 0, period_ends_at: null, state: 'settled' });
        return { lease_id: leaseId, used: 0, returned: 0, expired: 0 };
      }
      if (lease.workspace_id !== ctx.workspace_id) throw DomainError.invalid('lease_id', 'lease_id is taken');
      if (lease.state !== 'open') return { lease_id: leaseId, used: lease.used ?? 0, returned: lease.returned ?? 0, expired: lease.expired ?? 0 };
      if (!account) throw new Error(`lease ${leaseId} is open for a workspace without a credit account`);
      const refs = [...new Set(charged.map((p) => p.ref))];
      const refunded = await this.ledger.refundedRefs(tx, ctx.workspace_id, refs);
      const prior = new Set((await this.ledger.priorConsumes(tx, ctx.workspace_id, refs)).map((row) => row.ref));
      const seen = new Set<string>();
      const entries: LeasePageEntry[] = [];
      for (const page of charged) {
        if (refunded.has(page.ref) || prior.has(page.ref) || seen.has(page.ref)) continue;
        seen.add(page.ref);
        entries.push({ id: newId(ID_PREFIX.ledgerEntry, page.at.getTime()), ref: page.ref, at: page.at });
      }
      if (entries.length > lease.amount) throw new Error(`lease ${leaseId}: ${entries.length} pages charged against ${lease.amount} credits`);
      await this.ledger.insertLeasePages(tx, ctx.workspace_id, lease.pool, entries);
      const used = entries.length;
      const unused = lease.amount - used;
      const periodMoved = (lease.period_ends_at?.getTime() ?? null) !== (account.period_ends_at?.getTime() ?? null);
      const expired = lease.pool === 'plan' && periodMoved ? unused : 0;
      if (expired > 0) await this.entry(tx, ctx.workspace_id, { type: 'expire', amount: -expired, reason: 'plan_renewal', pool: 'plan' });
      if (lease.pool === 'plan') {
        account.plan_leased -= lease.amount;
        account.plan_balance -= used + expired;
      } else {
        account.pack_leased -= lease.amount;
        account.pack_balance -= used;
      }
      await this.ledger.markLeaseSettled(tx, leaseId, used, unused - expired, expired);
      await this.ledger.setBalances(tx, account);
      if (used > 0) await this.maybeLow(tx, ctx, account);
      return { lease_id: leaseId, used, returned: unused - expired, expired };
    });
  }

  private async render(account: AccountRow, db?: Queryable): Promise<CreditBalance> {
    const ledger = await this.ledger.recentEntries(account.workspace_id, db);
    return {
      object: 'credit_balance',
      plan: account.plan,
      balance: { plan: account.plan_balance, pack: account.pack_balance, total: account.plan_balance + account.pack_balance },
      period_ends_at: account.period_ends_at ? account.period_ends_at.toISOString() : null,
      ledger: ledger.map(renderEntry),
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
    await this.ledger.setBalances(tx, account);
    const object = await this.render(account, tx);
    await recordEvent(tx, { type: EVENT.creditsLow, workspace_id: account.workspace_id, livemode: ctx.livemode ?? true, api_version: ctx.api_version, object });
  }

  async grant(ctx: RequestContext, request: GrantCreditsRequest): Promise<CreditBalance> {
    const pool = request?.pool;
    const amount = request?.amount;
    if (!CREDIT_POOLS.includes(pool)) throw DomainError.invalid('pool', 'pool must be plan or pack');
    if (!Number.isInteger(amount) || amount < 1 || amount > MAX_AMOUNT) throw DomainError.invalid('amount', 'amount must be a positive integer');
    const reason = request.reason || (pool === 'pack' ? `pack_${amount}` : 'manual_grant');
    return this.uow.run(async (tx) => {
      const account = await this.lockExisting(tx, ctx.workspace_id);
      await this.entry(tx, ctx.workspace_id, { type: pool === 'pack' && reason.startsWith('pack_') ? 'purchase' : 'grant', amount, reason, pool });
      if (pool === 'plan') account.plan_balance += amount;
      else account.pack_balance += amount;
      await this.ledger.setBalances(tx, account);
      return this.render(account, tx);
    });
  }

  async renew(ctx: RequestContext): Promise<CreditBalance> {
    return this.uow.run(async (tx) => {
      const account = await this.lockExisting(tx, ctx.workspace_id);
      await this.renewLocked(tx, account);
      return this.render(account, tx);
    });
  }

  /** The account's row lock for a grant or a renewal, which name a workspace that must have one (404). */
  private async lockExisting(tx: Queryable, workspaceId: string): Promise<AccountRow> {
    const account = await this.ledger.lockAccount(tx, workspaceId);
    if (!account) throw DomainError.notFound('credit account', workspaceId, 'workspace');
    return account;
  }

  /**
   * Expires what is left of the plan pool and grants the plan's monthly credits; the period moves
   * on a month. What open leases reserve of the plan pool stays reserved: their settle charges
   * the pages taken before the period ended and expires the rest.
   */
  private async renewLocked(tx: Queryable, account: AccountRow): Promise<void> {
    const at = Date.now();
    const left = account.plan_balance - account.plan_leased;
    if (left > 0) {
      await this.entry(tx, account.workspace_id, { type: 'expire', amount: -left, reason: 'plan_renewal', pool: 'plan' }, at);
    }
    const monthly = this.config.planCredits[account.plan] ?? 0;
    if (monthly > 0) await this.entry(tx, account.workspace_id, { type: 'grant', amount: monthly, reason: 'plan_renewal', pool: 'plan' }, at + 1);
    account.plan_balance = monthly + account.plan_leased;
    account.period_ends_at = await this.ledger.nextPeriodEnd(tx, account.period_ends_at);
    await this.ledger.setBalances(tx, account);
  }

  /** The renewal job: every account whose period has ended, one transaction each. */
  async renewDue(limit = 100): Promise<number> {
    const due = await this.ledger.dueForRenewal(limit);
    for (const workspaceId of due) {
      await this.uow.run(async (tx) => {
        const account = await this.ledger.lockDueForRenewal(tx, workspaceId);
        if (account) await this.renewLocked(tx, account);
      });
    }
    return due.length;
  }

  /**
   * billing.accounts.open: the gateway opens a new workspace's account as it answers its creation
   * (the event does the same later, or first: opened once either way). Only for the workspace the
   * request is about: the context's, which the gateway sets to the new workspace.
   */
  async open(ctx: RequestContext, body: OpenAccountRequest): Promise<OpenedAccount> {
    const opening = toOpeningBalance(body);
    if (!opening) throw new DomainError('invalid_request', 'billing.accounts.open needs workspace_id, a plan and whole credit counts');
    if (opening.workspace_id !== ctx.workspace_id) throw new DomainError('invalid_request', "an account is opened only for the request's own workspace", 'workspace_id');
    const opened = await this.uow.run((tx) => this.openAccount(tx, opening));
    return { workspace_id: opening.workspace_id, opened };
  }

  /**
   * Opens a workspace's credit account with its first period and grants the starting balances.
   * Returns false when the account already exists: its balances are then left alone, so opening
   * twice never grants twice.
   */
  async openAccount(tx: Queryable, opening: OpeningBalance): Promise<boolean> {
    if (!(await this.ledger.insertAccount(tx, opening.workspace_id, opening.plan, opening.plan_credits, opening.pack_credits))) return false;
    const grants: Omit<NewLedgerEntry, 'id'>[] = [
      { type: 'grant', pool: 'plan', amount: opening.plan_credits, reason: 'plan_renewal' },
      { type: 'grant', pool: 'pack', amount: opening.pack_credits, reason: `pack_${opening.pack_credits}` },
    ];
    for (const grant of grants.filter((g) => g.amount > 0)) await this.entry(tx, opening.workspace_id, grant);
    return true;
  }
}
