import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import { onFreshConnection, PG_POOL, runPeriodically } from '@app/platform';
import { CounterStore } from './rate-limiter';

/**
 * Counters in the gateway's database (an UNLOGGED table: a database crash only resets a
 * minute's budgets). The window comes from the database clock, which every replica shares.
 */
@Injectable()
export class PgCounterStore implements CounterStore, OnApplicationBootstrap, OnApplicationShutdown {
  private stopSweeping?: () => void;

  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  onApplicationBootstrap(): void {
    this.stopSweeping = runPeriodically(
      // Hand-written: a set-based delete of past windows by the database clock.
      () => this.pool.query('DELETE FROM rate_limit_counters WHERE window_start < floor(extract(epoch FROM clock_timestamp()) / 60)::bigint - 1'),
      60_000,
    );
  }

  onApplicationShutdown(): void {
    this.stopSweeping?.();
  }

  async add(bucket: string, want: number) {
    // Hand-written and prepared (named): one upsert per lease on every request's path, the window taken from the database clock.
    // Not idempotent (a second run counts the lease twice): tried again on a broken connection only when the first surely did nothing.
    const { rows } = await onFreshConnection(() => this.pool.query<{ window_start: string; count: string; reset_in: number }>({
      name: 'rate-limit-add',
      text: `WITH clock AS (SELECT extract(epoch FROM clock_timestamp()) AS now_s)
        INSERT INTO rate_limit_counters AS c (bucket, window_start, count)
        SELECT $1, floor(now_s / 60)::bigint, $2 FROM clock
        ON CONFLICT (bucket, window_start) DO UPDATE SET count = c.count + EXCLUDED.count
        RETURNING c.window_start, c.count, ((c.window_start + 1) * 60 - (SELECT now_s FROM clock))::float8 AS reset_in`,
      values: [bucket, want],
    }), { idempotent: false });
    return { window: Number(rows[0].window_start), total: Number(rows[0].count), resetMs: rows[0].reset_in * 1000 };
  }
}
