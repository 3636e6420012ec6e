import { Plan, PLANS } from '@app/contracts';

export const BILLING_CONFIG = Symbol('BILLING_CONFIG');

/** Monthly plan credits per plan: BILLING_PLAN_CREDITS="free=50,starter=1000,growth=5000,agency=20000". */
export const DEFAULT_PLAN_CREDITS: Record<Plan, number> = { free: 50, starter: 1000, growth: 5000, agency: 20000 };

export interface BillingConfig {
  planCredits: Record<Plan, number>;
  renewalEveryMs: number;
}

export function loadBillingConfig(env: NodeJS.ProcessEnv = process.env): BillingConfig {
  const planCredits = { ...DEFAULT_PLAN_CREDITS };
  const raw = env.BILLING_PLAN_CREDITS;
  if (raw) {
    for (const part of raw.split(',')) {
      const [plan, amount] = part.split('=').map((s) => s.trim());
      const value = Number(amount);
      if (!PLANS.includes(plan as Plan) || !Number.isInteger(value) || value < 0) {
        throw new Error(`BILLING_PLAN_CREDITS: "${part}" is not <plan>=<non-negative integer>`);
      }
      planCredits[plan as Plan] = value;
    }
  }
  const every = Number(env.BILLING_RENEWAL_INTERVAL_MS || 60_000);
  return { planCredits, renewalEveryMs: Number.isInteger(every) && every >= 100 ? every : 60_000 };
}
