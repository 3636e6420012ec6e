/**
 * Whether a statement failed because its connection did, not because of what it says: the server
 * ending the session (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now), a
 * connection exception (08xxx), the server refusing a new connection for want of slots (53300
 * too_many_connections: every `max_connections` in use, for the moment), the socket reset, refused
 * or closed under it, or a connection node-postgres already knows is gone. A database failover
 * (the old primary stopped, the standby promoted) breaks every pooled connection at once: the next
 * statement on each fails so.
 */
export function connectionBroke(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';
  if (code === 'ECONNRESET' || code === 'ECONNREFUSED' || code === 'EPIPE' || code === 'ENOTCONN') return true;
  return /Connection terminated|not queryable/i.test(err.message);
}

/**
 * Whether a statement that failed with connectionBroke surely took no effect: the server answered
 * it with an error (a single statement outside a transaction is rolled back with it: a session
 * ended by 57P01 aborts what it was doing, uncommitted), or it was never sent (the connection
 * refused, or known gone before the statement was written). A connection lost with the statement
 * in flight ("Connection terminated unexpectedly", a reset) leaves it unknown: it may have
 * committed before the answer was lost.
 */
export function neverApplied(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return true;
  if (code === 'ECONNREFUSED') return true;
  return /not queryable/i.test(err.message);
}

/** How a statement may be tried again (onFreshConnection). */
export interface RetryOptions {
  /**
   * Running it twice has the effect of running it once (a read, an upsert that sets the same
   * values, a claim a second run finds taken): tried again whatever the connection's failure.
   * Otherwise (a counter incremented, a row appended) it is tried again only when the failure
   * shows it took no effect (neverApplied).
   */
  idempotent: boolean;
  /** Pause before the second try, so the pool has dropped its other connections the failover broke. */
  pauseMs?: number;
}

/** The default pause before a statement's second try. */
export const CONNECTION_RETRY_PAUSE_MS = 50;

/**
 * Runs `statement` (one query of a pool: `pool.query` hands back a connection whose query failed
 * destroyed, so the next one gets another), and once more, after a short pause, when it failed
 * because its connection broke and trying again is safe (RetryOptions). Any other failure, or a
 * second one, is the caller's. For the gateway's own stores (idempotency claims, key look-ups,
 * rate-limit counters, the audit log), so a database failover costs a request a pause, not a 500.
 */
export async function onFreshConnection<T>(statement: () => Promise<T>, options: RetryOptions): Promise<T> {
  try {
    return await statement();
  } catch (err) {
    if (!connectionBroke(err) || (!options.idempotent && !neverApplied(err))) throw err;
    const pauseMs = options.pauseMs ?? CONNECTION_RETRY_PAUSE_MS;
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    return statement();
  }
}
