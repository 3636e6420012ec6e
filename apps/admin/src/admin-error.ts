/** A failure the operator can act on: its message is printed as is (`error: …`, exit 1). */
export class AdminError extends Error {
  /**
   * `retryable`: the request got no answer in time, or no service was listening (the service may or
   * may not have acted): asking again is safe for a request that is idempotent.
   */
  constructor(message: string, readonly retryable = false) {
    super(message);
  }
}
