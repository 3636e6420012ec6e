/**
 * How many retries a client may add to the requests it sends (Finagle's RetryBudget, gRPC's retry
 * throttling): every first attempt puts `ratio` of a token in, every retry takes one out, and a
 * floor of `perSecond` tokens a second comes in whatever the traffic, up to `capacity`. A replica
 * that dies holding a few requests costs a few retries, which the budget has; a mesh where every
 * attempt times out because the machine is saturated gets at most `ratio` more work, not
 * MAX_ATTEMPTS times the work (the retry storm that keeps an overloaded mesh overloaded after the
 * spike that caused it is gone).
 */
export class RetryBudget {
  private tokens: number;
  private last: number;

  constructor(
    readonly ratio = 0.2,
    readonly perSecond = 5,
    readonly capacity = 20,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = capacity;
    this.last = now();
  }

  /** A first attempt went out: it earns `ratio` of a retry. */
  deposit(): void {
    this.refill();
    this.tokens = Math.min(this.capacity, this.tokens + this.ratio);
  }

  /** True (and one token spent) when a retry may go out now. */
  withdraw(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Tokens left, for tests and metrics. */
  available(): number {
    this.refill();
    return this.tokens;
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
  }
}
