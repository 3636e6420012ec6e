/**
 * The client's errors, one class per kind of failure as Stripe's SDKs have them (chosen by
 * status), so a caller can branch with `instanceof` as well as on `code`.
 */

import type { components } from './api';

/** The API's error object (`{ error: { type, code, message, param?, doc_url } }`). */
export type ApiErrorObject = components['schemas']['Error'];

/** A failed call: the API's error object, its status and `Request-Id`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorObject | undefined,
    readonly requestId: string | null,
  ) {
    super(body?.error ? `${status} ${body.error.code}: ${body.error.message}` : `HTTP ${status}`);
    this.name = 'ApiError';
  }

  get code(): string | undefined {
    return this.body?.error?.code;
  }

  get param(): string | undefined {
    return this.body?.error?.param;
  }

  /** The class for the status: `ApiError.from(401, …)` is an AuthenticationError. */
  static from(status: number, body: ApiErrorObject | undefined, requestId: string | null): ApiError {
    const Kind = status >= 500 ? ApiServerError : (ERROR_CLASSES[status] ?? ApiError);
    return new Kind(status, body, requestId);
  }
}

/** 400: the request is malformed or a value is out of range (`param` names the field). */
export class InvalidRequestError extends ApiError {
  override name = 'InvalidRequestError';
}
/** 401: no key, an unknown or revoked key. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
/** 402: not enough credits. */
export class InsufficientCreditsError extends ApiError {
  override name = 'InsufficientCreditsError';
}
/** 403: the key may not do this (role, mode, plan). */
export class PermissionError extends ApiError {
  override name = 'PermissionError';
}
/** 404: no such resource in the key's workspace. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/** 409: a duplicate, a concurrent change, or an Idempotency-Key reused or still in progress. */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
/** 429: over the key's rate limit (`Retry-After` says when to come back). */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}
/** 5xx: the service failed, or a proxy in front of it did. */
export class ApiServerError extends ApiError {
  override name = 'ApiServerError';
}

const ERROR_CLASSES: Record<number, typeof ApiError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  402: InsufficientCreditsError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  429: RateLimitError,
};

/**
 * No answer came: the connection was refused or cut before an answer began, or no answer began
 * within the client's `timeoutMs`; thrown after the retries were spent (`cause`: the last one's).
 * Whether a POST ran is unknown: sending it again with the same Idempotency-Key is safe.
 */
export class ApiConnectionError extends Error {
  override name = 'ApiConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
