import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';

export interface RateLimitVerdict {
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
  allowed: boolean;
}

/** Shared storage of the window counters: adds `want` to a bucket's count in the current window. */
export interface CounterStore {
  add(bucket: string, want: number): Promise<{ window: number; total: number; resetMs: number }>;
}

export const COUNTER_STORE = Symbol('COUNTER_STORE');

interface Bucket {
  window: number;
  endsAt: number;
  /** The shared count after this replica's last lease (what it was granted, not what it asked). */
  shared: number;
  /** Requests leased by this replica and not yet admitted. */
  unused: number;
  exhausted: boolean;
  pending?: Promise<void>;
  waiting: number;
  arrivals: number;
  rateSince: number;
  perSecond: number;
}

/** Leases cover about this much of a bucket's recent traffic. */
const LEASE_SPAN_MS = 50;

/**
 * Fixed one-minute windows per bucket, one budget for every gateway replica, exact across them:
 * the limit+1st request of a window is refused whichever replica answers it. While the shared
 * count is in the first half of the budget, a replica leases requests in blocks sized to its
 * recent traffic (one at a time at low rates) and admits from its lease without a round trip. In
 * the second half it leases only for the requests waiting (concurrent requests of a bucket share
 * one round trip), so no replica holds an unused lease when the budget runs out and refuses while
 * another could still admit: the cost is at most half the limit of round trips per bucket and
 * window. A lease is counted in the shared store before its requests are admitted, so the
 * replicas together never admit more than the limit.
 */
@Injectable()
export class RateLimiter implements OnApplicationShutdown {
  private readonly buckets = new Map<string, Bucket>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    @Inject(COUNTER_STORE) private readonly store: CounterStore,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.forgetEnded(), 60_000);
    this.sweeper.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }

  async hit(name: string, limit: number): Promise<RateLimitVerdict> {
    const bucket = this.bucket(name);
    this.noteArrival(bucket);
    for (;;) {
      if (bucket.endsAt <= this.now()) this.startOver(bucket);
      if (bucket.unused > 0) {
        bucket.unused--;
        return this.verdict(bucket, limit, true);
      }
      if (bucket.exhausted) return this.verdict(bucket, limit, false);
      if (!bucket.pending) {
        bucket.pending = this.lease(bucket, name, limit).finally(() => {
          bucket.pending = undefined;
        });
      }
      bucket.waiting++;
      try {
        await bucket.pending;
      } finally {
        bucket.waiting--;
      }
    }
  }

  private async lease(bucket: Bucket, name: string, limit: number): Promise<void> {
    const current = (bucket.arrivals * 1000) / Math.max(this.now() - bucket.rateSince, LEASE_SPAN_MS);
    const rateWant = Math.ceil((Math.max(bucket.perSecond, current) * LEASE_SPAN_MS) / 1000);
    const block = Math.max(1, Math.min(Math.max(rateWant, bucket.waiting), Math.max(1, Math.floor(limit / 10))));
    // bucket.shared lags the other replicas' leases (it never runs ahead of the shared count); in
    // the second half the lease is for this request and those already waiting on it, no more
    const want = bucket.shared + block <= Math.floor(limit / 2) ? block : bucket.waiting + 1;
    const { window, total, resetMs } = await this.store.add(name, want);
    if (window !== bucket.window) this.startOver(bucket);
    const granted = Math.max(0, Math.min(want, limit - (total - want)));
    bucket.window = window;
    bucket.endsAt = this.now() + resetMs;
    bucket.shared = Math.min(total, Math.max(limit, total - want));
    bucket.unused += granted;
    if (granted < want) bucket.exhausted = true;
  }

  private verdict(bucket: Bucket, limit: number, allowed: boolean): RateLimitVerdict {
    const admitted = bucket.shared - bucket.unused;
    return {
      limit,
      remaining: allowed ? Math.max(0, limit - admitted) : 0,
      resetSeconds: Math.max(1, Math.ceil((bucket.endsAt - this.now()) / 1000)),
      allowed,
    };
  }

  private bucket(name: string): Bucket {
    let bucket = this.buckets.get(name);
    if (!bucket) {
      bucket = { window: -1, endsAt: 0, shared: 0, unused: 0, exhausted: false, waiting: 0, arrivals: 0, rateSince: this.now(), perSecond: 0 };
      this.buckets.set(name, bucket);
    }
    return bucket;
  }

  private startOver(bucket: Bucket): void {
    bucket.window = -1;
    bucket.endsAt = 0;
    bucket.shared = 0;
    bucket.unused = 0;
    bucket.exhausted = false;
  }

  private noteArrival(bucket: Bucket): void {
    bucket.arrivals++;
    const elapsed = this.now() - bucket.rateSince;
    if (elapsed >= 250) {
      bucket.perSecond = (bucket.arrivals * 1000) / elapsed;
      bucket.arrivals = 0;
      bucket.rateSince = this.now();
    }
  }

  private forgetEnded(): void {
    const cutoff = this.now() - 60_000;
    for (const [name, bucket] of this.buckets) {
      if (bucket.endsAt < cutoff && !bucket.pending) this.buckets.delete(name);
    }
  }
}
