import { ERROR_STATUS, ErrorCode } from '@app/contracts';

/** A failure answered with the spec's error object. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  static invalid(param: string | undefined, message: string): ApiError {
    return new ApiError('invalid_request', message, param);
  }
}
