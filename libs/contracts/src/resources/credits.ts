import { ApiProperty } from '@nestjs/swagger';
import { PLANS, Plan } from '../enums';
import { ConstProperty, DateTimeProperty, IdProperty } from './api-property';


export const LEDGER_TYPES = ['grant', 'purchase', 'consume', 'refund', 'expire'] as const;
export type LedgerType = (typeof LEDGER_TYPES)[number];
export const CREDIT_POOLS = ['plan', 'pack'] as const;
export type CreditPool = (typeof CREDIT_POOLS)[number];

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

/** billing.credits.grant (admin): adds credits to one pool. */
export interface GrantCreditsRequest {
  pool: CreditPool;
  amount: number;
  reason?: string;
}
