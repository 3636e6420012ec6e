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
};

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

export interface ErrorBody {
  error: { type: string; code: ErrorCode; message: string; param?: string; doc_url: string };
}
