import { ApiProperty } from '../api-docs';
import { CREDIT_POOLS, type CreditPool, PLANS, Plan } from '../enums';
import { ConstProperty, DateTimeProperty, IdProperty } from './api-property';


export const LEDGER_TYPES = ['grant', 'purchase', 'consume', 'refund', 'expire'] as const;
export type LedgerType = (typeof LEDGER_TYPES)[number];

export class LedgerEntry {
  @IdProperty('cl_')
  id!: string;

  @ApiProperty({ enum: LEDGER_TYPES })
  type!: LedgerType;

  @ApiProperty({ type: 'integer', description: 'Signed; negative for consumption and expiry.' })
  amount!: number;

  @ApiProperty({ type: 'string', description: 'Cause, for example search_page, reveal, reveal_failed, plan_renewal, pack_2000.' })
  reason!: string;

  @ApiProperty({ type: 'string', description: 'Related object ID such as a reveal or a payment invoice.', nullable: true })
  ref!: string | null;

  @ApiProperty({ enum: CREDIT_POOLS })
  pool!: CreditPool;

  @DateTimeProperty()
  created_at!: string;
}

/** Credits left, by pool. */
export class CreditAmounts {
  @ApiProperty({ type: 'integer', description: 'Plan credits left this period; used first, reset at renewal.' })
  plan!: number;

  @ApiProperty({ type: 'integer', description: 'Pack credits; never expire, used after plan credits.' })
  pack!: number;

  @ApiProperty({ type: 'integer', description: 'plan + pack.' })
  total!: number;
}

export class CreditBalance {
  @ConstProperty('credit_balance')
  object!: 'credit_balance';

  @ApiProperty({ enum: PLANS })
  plan!: Plan;

  @ApiProperty({ type: CreditAmounts })
  balance!: CreditAmounts;

  @DateTimeProperty('When plan credits renew.', { nullable: true })
  period_ends_at!: string | null;

  @ApiProperty({ type: LedgerEntry, isArray: true, description: 'The 20 most recent entries, newest first.' })
  ledger!: LedgerEntry[];
}

/** billing.credits.consume: takes `amount` (default 1) credits, plan pool first; `ref` makes it idempotent. */
export interface ConsumeCreditsRequest {
  ref: string;
  reason: string;
  amount?: number;
}

export interface ConsumeCreditsResult {
  /** False when a consume with this ref had been applied before, or the ref was refunded (nothing taken now). */
  applied: boolean;
  charged: number;
  /**
   * Present when a refund of this ref was asked for, before or after this consume (its caller
   * gave up on it): nothing is charged for the ref, and the work it would pay for must not be done.
   */
  refunded?: true;
  balance: CreditAmounts;
}

/**
 * billing.credits.refund: gives back what the consume with `ref` took, once, and closes the ref:
 * a consume of it that comes later (late, or retried) charges nothing.
 */
export interface RefundCreditsRequest {
  ref: string;
  reason: string;
}

export interface RefundCreditsResult {
  applied: boolean;
  refunded: number;
}

/**
 * billing.credits.lease (search): reserves up to `want` credits of one pool (plan while it has any
 * to spare, else pack) for the workspace's search pages, under `lease_id` (search's; asking again
 * answers the same lease). Nothing is charged by it: search charges each page against the lease in
 * its own database and settles the lease (billing.credits.settleLease), which writes the pages'
 * consumes and returns the rest.
 */
export interface LeaseCreditsRequest {
  lease_id: string;
  want: number;
}

export interface LeaseCreditsResult {
  lease_id: string;
  /** Credits reserved by this lease; 0 when the workspace has none to spare. */
  granted: number;
  pool: CreditPool | null;
  /** Credits the workspace's open leases reserve, this one included (when granted is 0: held by others). */
  leased: number;
  /** How long the lease may be charged against at most: until the plan period it was taken in ends (null: no period). */
  expires_in_ms: number | null;
  /** The lease was settled before (a request that arrived after its settle): it reserves nothing. */
  closed?: true;
}

/** A page charged against a lease: its ref and when it was charged. */
export interface LeasePage {
  ref: string;
  at: string;
}

/**
 * billing.credits.settleLease (search): ends a lease. Each page is written as a consume of 1 credit
 * (reason search_page, its ref, at its time) unless its ref was refunded; the rest of the lease
 * goes back to the balance, or expires when the plan period it was taken in has ended. Settling
 * again answers the first settle's outcome.
 */
export interface SettleLeaseRequest {
  lease_id: string;
  pages: LeasePage[];
}

export interface SettleLeaseResult {
  lease_id: string;
  used: number;
  returned: number;
  expired: number;
}

/** billing.credits.grant (admin): adds credits to one pool. */
export interface GrantCreditsRequest {
  pool: CreditPool;
  amount: number;
  reason?: string;
}
