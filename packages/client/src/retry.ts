/**
 * How the client sends a request and when it sends it again, after Stripe's SDKs (stripe-node's
 * `RequestSender`: `_shouldRetry`, `_getSleepTimeInMS`): a request is sent again when it may not
 * have run or ran into a passing failure, with the same Idempotency-Key on every attempt of a
 * POST, so one that did run is answered from its stored result instead of running twice.
 */
import { randomUUID } from 'node:crypto';
import { ApiConnectionError } from './errors';

/**
 * Retries after the first attempt, unless the options say otherwise. Stripe's SDKs make 2; this
 * API's own recoveries take longer than 2 retries wait (0.75 to 1.5 s): a POST held by a gateway
 * that died is answered 409 "still being processed" until another gateway takes its claim over,
 * about 2 s later, and a database failover takes a second or more. 4 retries wait 3.75 to 7.5 s.
 */
export const DEFAULT_MAX_RETRIES = 4;
/** The first retry's backoff; it doubles per retry up to MAX_BACKOFF_MS, then jitter takes up to half off. */
export const INITIAL_BACKOFF_MS = 500;
export const MAX_BACKOFF_MS = 5_000;
/** A `Retry-After` longer than this is not waited for: the answer is returned (`maxRetryDelayMs`). */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;
/** How long an attempt waits for its answer to begin before it counts as a connection error (`timeoutMs`). */
export const DEFAULT_TIMEOUT_MS = 80_000;
/** Statuses sent again whatever the body says: rate limited, and the server's or a proxy's failures. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

export interface RetryOptions {
  /** Retries after the first attempt (default DEFAULT_MAX_RETRIES); 0 turns retrying off. */
  maxRetries?: number;
  /** A `Retry-After` longer than this (default 60 s) is not waited for: the answer is returned. */
  maxRetryDelayMs?: number;
  /** How long an attempt waits for its answer to begin (default 80 s); then it is retried as a connection error. */
  timeoutMs?: number;
  /** Makes an Idempotency-Key for a POST that has none (default a random UUID). */
  idempotencyKey?: () => string;
  /** The fetch the requests go through (default the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** How a wait is done (default setTimeout). */
  sleep?: (ms: number) => Promise<void>;
  /** The jitter's source, a number in [0, 1) (default Math.random). */
  random?: () => number;
}

/**
 * The gateway's 409 for a POST whose Idempotency-Key an earlier attempt still holds: it will be
 * answered once that attempt ends (or its gateway is found gone), so it is asked again. The other
 * 409s on the key (a different request under it, or another role or plan) and every other 409 (a
 * duplicate, a concurrent change) would be answered the same again, so they are returned.
 */
export function isInProgressConflict(status: number, body: unknown): boolean {
  if (status !== 409 || !body || typeof body !== 'object') return false;
  const error = (body as { error?: { code?: unknown; param?: unknown; message?: unknown } }).error;
  return error?.code === 'conflict' && error.param === 'Idempotency-Key' && typeof error.message === 'string' && /\bstill being processed\b/.test(error.message);
}

/**
 * The wait before retry number `retry` (1 for the first): INITIAL_BACKOFF_MS doubled per retry,
 * at most MAX_BACKOFF_MS, times 0.5 to 1 (jitter, so clients that failed together do not come back
 * together), and never shorter than a `Retry-After` the answer gave (seconds, or an HTTP date).
 */
export function retryDelayMs(retryAfter: string | null, retry: number, random: () => number = Math.random, now = Date.now()): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, INITIAL_BACKOFF_MS * 2 ** Math.max(0, retry - 1));
  const backoff = Math.round(ceiling * (0.5 + 0.5 * random()));
  const asked = retryAfterMs(retryAfter, now);
  return asked === undefined ? backoff : Math.max(backoff, asked);
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; undefined without a readable one. */
export function retryAfterMs(retryAfter: string | null, now = Date.now()): number | undefined {
  const value = retryAfter?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const sleeper = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A fetch that adds an Idempotency-Key to a POST without one and sends a request again (the same
 * method, headers, body and key) when:
 * - no answer began: the connection was refused, reset or closed, or `timeoutMs` passed;
 * - the answer is 429, 500, 502, 503 or 504;
 * - the answer is the gateway's 409 "still being processed" for the key (isInProgressConflict);
 * at most `maxRetries` times, waiting retryDelayMs between attempts. A `Retry-After` beyond
 * `maxRetryDelayMs` ends the retries with that answer. Any other answer (400, 401, 402, 403, 404,
 * another 409, …) is returned at once; a request the caller aborts is not sent again. When the
 * last attempt got no answer, an ApiConnectionError is thrown (`cause`: what the fetch threw).
 *
 * `timeoutMs` bounds the wait for an answer to begin, not for its body: a stream (GET
 * /events/stream) stays open as long as the caller reads it.
 */
export function retryingFetch(options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxRetryAfter = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const newKey = options.idempotencyKey ?? randomUUID;
  const sleep = options.sleep ?? sleeper;
  const random = options.random ?? Math.random;
  return async (input: Request) => {
    const headers = new Headers(input.headers);
    if (input.method === 'POST' && !headers.has('Idempotency-Key')) headers.set('Idempotency-Key', newKey());
    // read once: every attempt sends these bytes
    const body = input.body === null ? undefined : await input.arrayBuffer();
    const callerSignal = input.signal;
    for (let retry = 0; ; retry += 1) {
      const timer = new AbortController();
      const timeout = setTimeout(() => timer.abort(new ApiConnectionError(`no answer began within ${timeoutMs} ms`)), timeoutMs);
      const attempt = new Request(input.url, { method: input.method, headers, body, signal: AbortSignal.any([callerSignal, timer.signal]) });
      let response: Response;
      try {
        response = await send(attempt);
      } catch (err) {
        if (callerSignal.aborted) throw err;
        const cause = timer.signal.aborted ? timer.signal.reason : err;
        if (retry >= maxRetries) {
          throw new ApiConnectionError(`${input.method} ${input.url}: no answer after ${retry + 1} attempt${retry ? 's' : ''} (${(cause as Error)?.message ?? cause})`, { cause });
        }
        await sleep(retryDelayMs(null, retry + 1, random));
        continue;
      } finally {
        clearTimeout(timeout);
      }
      if (retry >= maxRetries || !(await shouldRetry(response))) return response;
      const asked = retryAfterMs(response.headers.get('Retry-After'));
      if (asked !== undefined && asked > maxRetryAfter) return response;
      await response.body?.cancel();
      await sleep(retryDelayMs(response.headers.get('Retry-After'), retry + 1, random));
    }
  };
}

async function shouldRetry(response: Response): Promise<boolean> {
  if (RETRY_STATUSES.has(response.status)) return true;
  if (response.status !== 409) return false;
  const body: unknown = await response.clone().json().catch(() => undefined);
  return isInProgressConflict(response.status, body);
}
