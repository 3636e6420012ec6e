import { Plan } from '../enums';

export const LEDGER_TYPES = ['grant', 'purchase', 'consume', 'refund', 'expire'] as const;
export type LedgerType = (typeof LEDGER_TYPES)[number];
export const CREDIT_POOLS = ['plan', 'pack'] as const;
export type CreditPool = (typeof CREDIT_POOLS)[number];

export interface LedgerEntry {
  id: string;
  type: LedgerType;
  amount: number;
  reason: string;
  ref: string | null;
  pool: CreditPool;
  created_at: string;
}

export interface CreditBalance {
  object: 'credit_balance';
  plan: Plan;
  balance: { plan: number; pack: number; total: number };
  period_ends_at: string | null;
  ledger: LedgerEntry[];
}

/** billing.credits.consume: takes `amount` (default 1) credits, plan pool first; `ref` makes it idempotent. */
export interface ConsumeCreditsRequest {
  ref: string;
  reason: string;
  amount?: number;
}

export interface ConsumeCreditsResult {
  /** False when a consume with this ref had been applied before (nothing taken now). */
  applied: boolean;
  charged: number;
  balance: { plan: number; pack: number; total: number };
}

/** billing.credits.refund: gives back what the consume with `ref` took, once. */
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
