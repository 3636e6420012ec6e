import { Plan, PLANS } from '@app/contracts';
import { ConfigError, envInt } from '@app/platform';
import { GroupCommitLimits } from './credits/group-commit-queue';

export const BILLING_CONFIG = Symbol('BILLING_CONFIG');

/** Monthly plan credits per plan: BILLING_PLAN_CREDITS="free=50,starter=1000,growth=5000,agency=20000". */
export const DEFAULT_PLAN_CREDITS: Record<Plan, number> = { free: 50, starter: 1000, growth: 5000, agency: 20000 };

export interface BillingConfig {
  planCredits: Record<Plan, number>;
  renewalEveryMs: number;
  /**
   * Consumes of one workspace in one transaction (BILLING_CONSUME_BATCH_MAX), and how long one may
   * wait for its group before it is refused (BILLING_CONSUME_MAX_WAIT_MS): its caller (5 s
   * time-out) is then about to give up and refund the ref, so applying it is wasted work. Exactness
   * does not rest on it (a consume that reached billing late waited here only from its arrival):
   * a refund closes its ref, so a consume it overtakes charges nothing.
   */
  consumeGroup: GroupCommitLimits;
}

export function loadBillingConfig(env: NodeJS.ProcessEnv = process.env): BillingConfig {
  const planCredits = { ...DEFAULT_PLAN_CREDITS };
  const raw = env.BILLING_PLAN_CREDITS;
  if (raw) {
    for (const part of raw.split(',')) {
      const [plan, amount] = part.split('=').map((s) => s.trim());
      const value = Number(amount);
      if (!PLANS.includes(plan as Plan) || !Number.isInteger(value) || value < 0) {
        throw new ConfigError(`BILLING_PLAN_CREDITS: "${part}" is not <plan>=<non-negative integer>`);
      }
      planCredits[plan as Plan] = value;
    }
  }
  return {
    planCredits,
    renewalEveryMs: envInt(env, 'BILLING_RENEWAL_INTERVAL_MS', 60_000, 100, Number.MAX_SAFE_INTEGER),
    consumeGroup: {
      batchMax: envInt(env, 'BILLING_CONSUME_BATCH_MAX', 200, 1, 100_000),
      maxWaitMs: envInt(env, 'BILLING_CONSUME_MAX_WAIT_MS', 2500, 1, 600_000),
    },
  };
}
