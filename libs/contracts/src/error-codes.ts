/** Stable error codes of the spec; clients branch on them. */
export const ERROR_CODES = {
  invalidRequest: 'invalid_request',
  authenticationFailed: 'authentication_failed',
  insufficientCredits: 'insufficient_credits',
  permissionDenied: 'permission_denied',
  notFound: 'not_found',
  conflict: 'conflict',
  rateLimited: 'rate_limited',
  internalError: 'internal_error',
  serviceUnavailable: 'service_unavailable',
} as const;
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  authentication_failed: 401,
  insufficient_credits: 402,
  permission_denied: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
};

/**
 * The `Retry-After` (seconds) of every 503 `service_unavailable`: what a client waits before it
 * asks again when the service or its database is not answering (a database failing over, every
 * replica out of its queue groups meanwhile). 5 s: packages/client's default 4 retries then wait
 * at least 20 s in all, which covers the shipped CloudNativePG examples' detection (readiness
 * probe every 2 s, 3 failures: 4-6 s) and promotion with margin (docs/decisions.md, "A database
 * failover is answered 503 with Retry-After").
 */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_S = 5;

/**
 * The gateway's 409 messages for an Idempotency-Key it will not run the request under now. Only
 * the first passes: packages/client sends that request again (isInProgressConflict reads this
 * wording), so it must keep saying "still being processed" and the others must not.
 */
export const IDEMPOTENCY_CONFLICT_MESSAGES = {
  inProgress: 'A request with this Idempotency-Key is still being processed; retry shortly',
  mismatch: 'This Idempotency-Key was already used with a different request',
  otherGrants: "This Idempotency-Key was answered when this API key's role or plan was different; send a new key",
} as const;

/** Broad class of an error (`error.type`). */
export const ERROR_TYPE: Record<ErrorCode, string> = {
  invalid_request: 'invalid_request_error',
  authentication_failed: 'authentication_error',
  insufficient_credits: 'billing_error',
  permission_denied: 'permission_error',
  not_found: 'invalid_request_error',
  conflict: 'invalid_request_error',
  rate_limited: 'rate_limit_error',
  internal_error: 'api_error',
  service_unavailable: 'api_error',
};

/** What a service answers over NATS for a domain failure. */
export interface DomainErrorPayload {
  code: ErrorCode;
  message: string;
  param?: string;
}

export function isDomainErrorPayload(value: unknown): value is DomainErrorPayload {
  if (!value || typeof value !== 'object') return false;
  const code = (value as { code?: unknown }).code;
  return typeof code === 'string' && code in ERROR_STATUS;
}
