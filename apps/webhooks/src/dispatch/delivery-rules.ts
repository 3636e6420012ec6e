/** Seconds after the previous attempt: about 1 min, 5 min, 30 min, 2 h, 6 h, 15 h (spec). */
export const RETRY_DELAYS_S = [60, 300, 1800, 7200, 21_600, 54_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;
/**
 * Attempts of a sample event (POST /webhook_endpoints/{id}/test): the first and one retry on the
 * schedule's first delay. A sample is asked for by a request, so the schedule's seven attempts
 * would let each request send a failing URL seven.
 */
export const SAMPLE_MAX_ATTEMPTS = 2;
/** Plus or minus this share of each delay, so failing deliveries do not retry in lockstep. */
export const RETRY_JITTER = 0.1;
export const DISABLE_AFTER_FAILED_DELIVERIES = 100;

export function retryDelayMs(attemptsMade: number, random = Math.random()): number {
  const base = RETRY_DELAYS_S[attemptsMade - 1] * 1000;
  return Math.round(base * (1 + RETRY_JITTER * (2 * random - 1)));
}

export type DeliveryStatusAfter = 'succeeded' | 'failed' | 'pending';

/**
 * A delivery's state after its `attempt`-th attempt: done, failed for good once `maxAttempts`
 * were made, or due again after the delay.
 */
export function afterAttempt(attempt: number, ok: boolean, maxAttempts = MAX_ATTEMPTS): { status: DeliveryStatusAfter; delayMs: number } {
  if (ok) return { status: 'succeeded', delayMs: 0 };
  if (attempt >= maxAttempts) return { status: 'failed', delayMs: 0 };
  return { status: 'pending', delayMs: retryDelayMs(attempt) };
}

/** What a group of recorded attempts does to an endpoint's count of deliveries failed for good. */
export interface FailureCountChange {
  endpointId: string;
  /** The count restarts (a success) before `add` is added. */
  reset: boolean;
  add: number;
}

/**
 * The endpoints' failure counts after attempts, in the order they were made: a success restarts
 * the count, each delivery failed for good adds one. Endpoints left as they were are not listed.
 */
export function failureCountChanges(attempts: { endpointId: string; attempt: number; ok: boolean; maxAttempts?: number }[]): FailureCountChange[] {
  const counts = new Map<string, { reset: boolean; add: number }>();
  for (const { endpointId, attempt, ok, maxAttempts = MAX_ATTEMPTS } of attempts) {
    const c = counts.get(endpointId) ?? { reset: false, add: 0 };
    if (ok) counts.set(endpointId, { reset: true, add: 0 });
    else if (attempt >= maxAttempts) counts.set(endpointId, { reset: c.reset, add: c.add + 1 });
    else counts.set(endpointId, c);
  }
  return [...counts].filter(([, c]) => c.reset || c.add > 0).map(([endpointId, c]) => ({ endpointId, ...c }));
}
