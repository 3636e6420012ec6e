import { ERROR_STATUS, ErrorCode, SERVICE_UNAVAILABLE_RETRY_AFTER_S } from '@app/contracts';

/**
 * A failure answered with the spec's error object. A 503 `service_unavailable` always carries
 * `Retry-After` (SERVICE_UNAVAILABLE_RETRY_AFTER_S unless given), as a 429 does.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
    this.headers = code === 'service_unavailable' && headers['Retry-After'] === undefined
      ? { ...headers, 'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_S) }
      : headers;
  }

  static invalid(param: string | undefined, message: string): ApiError {
    return new ApiError('invalid_request', message, param);
  }

  /**
   * 503 `service_unavailable` with `Retry-After`: the request did not run, or ran into a database
   * that stopped answering under it (a failover); asked again after Retry-After it is answered.
   */
  static unavailable(message: string): ApiError {
    return new ApiError('service_unavailable', message);
  }
}
