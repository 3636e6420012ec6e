import { Injectable } from '@nestjs/common';
import { Client, Pool, PoolClient } from 'pg';
import { Logger } from 'pino';
import { pgClientConfig } from './pg-tls';

/** While the database does not answer, the next probe follows a failed one this soon (not at the next interval). */
const DOWN_PROBE_MS = 100;

/** How long one probe may take before it counts as a slow one. */
const PROBE_DEADLINE_MS = 2000;
/**
 * Slow probes in a row before the database counts as not answering. A database that is slow
 * under load is slow for every replica at once: leaving on the first slow probe would take every
 * replica out of its queue groups together and leave the subject with no responder at all.
 */
export const SLOW_PROBES_TO_LEAVE = 3;

/**
 * The process's one judgment of whether its database answers, once its DatabaseWatch runs: the
 * watch decides the queue groups by it and `/health/ready` reports it (HealthController), so an
 * orchestrator and the bus see the same thing. Readiness with a query of its own on the pool
 * waited for a connection behind the requests of a saturated pool and answered 503 after 1.5 s,
 * on every replica at once under load (the watch calls a saturated pool busy, not lost).
 */
@Injectable()
export class DatabaseState {
  private watchRuns = false;
  private answering = true;

  /** Whether a watch reports here (startService starts it after the warm-up). */
  get watched(): boolean {
    return this.watchRuns;
  }

  get up(): boolean {
    return this.answering;
  }

  watching(): void {
    this.watchRuns = true;
  }

  changed(up: boolean): void {
    this.answering = up;
  }
}

/**
 * Watches whether the service's database answers: `SELECT 1` every interval, on an idle
 * connection of the service's pool when it has one, else on a connection of the watch's own (a
 * pool saturated by slow requests is busy, not lost: it has no idle connection then, and the
 * probe does not queue behind its requests). An idle service's pool keeps the connection its
 * pollers use, so the watch adds none of its own there; its own is closed as soon as a probe finds
 * an idle pooled one. It probes at once when its own connection or one of the pool's idle
 * connections breaks (a database that went away is noticed in milliseconds, not at the next tick). A refused or broken connection counts at once; a probe
 * that only outlives its deadline counts after `SLOW_PROBES_TO_LEAVE` such probes in a row.
 * While it does not answer, probes follow one another every DOWN_PROBE_MS.
 * Reports each change, up or down, to `onChange`, one at a time. Nothing runs per request.
 */
export class DatabaseWatch {
  private client?: Client;
  /** The pooled connection a probe runs on, while it runs. */
  private borrowed?: PoolClient;
  private timer?: NodeJS.Timeout;
  /** The quick look again after a failed probe, while it is pending. */
  private retry?: NodeJS.Timeout;
  private probing?: Promise<void>;
  private up = true;
  private slowProbes = 0;
  private stopped = false;
  private readonly poke = () => void this.probe();

  constructor(
    private readonly databaseUrl: string,
    private readonly pool: Pool,
    private readonly intervalMs: number,
    private readonly onChange: (up: boolean) => Promise<void>,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(this.poke, this.intervalMs);
    this.timer.unref();
    this.pool.on('error', this.poke);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.retry);
    this.pool.off('error', this.poke);
    this.drop();
    this.giveBack(new Error('watch stopped'));
  }

  /**
   * One probe at a time: a probe asked for while one runs shares its outcome. A stopped watch
   * probes no more (a retry or a broken connection's event after `stop()` opens nothing).
   */
  probe(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.probing ??= this.check().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  private async check(): Promise<void> {
    let up = true;
    let reason: string | undefined;
    try {
      await withDeadline(this.selectOne(), PROBE_DEADLINE_MS);
      this.slowProbes = 0;
    } catch (err) {
      reason = (err as Error).message;
      this.drop();
      this.giveBack(err as Error);
      const slow = err instanceof ProbeDeadlineError;
      this.slowProbes = slow ? this.slowProbes + 1 : 0;
      up = slow && this.slowProbes < SLOW_PROBES_TO_LEAVE && this.up;
      if (up) this.log.warn({ reason, slowProbes: this.slowProbes }, 'database answers slowly: staying in the queue groups');
    }
    // out of the queue groups: look again soon, so the replica is back within moments of its database (a failover's promotion)
    if (!up && !this.stopped) {
      clearTimeout(this.retry);
      this.retry = setTimeout(this.poke, DOWN_PROBE_MS);
      this.retry.unref();
    }
    if (up === this.up || this.stopped) return;
    this.up = up;
    if (up) this.log.info('database answers again: joining the queue groups');
    else this.log.warn({ reason }, 'database does not answer: leaving the queue groups until it does');
    await this.onChange(up).catch((err: Error) => this.log.warn({ err: err.message }, 'queue-group change failed'));
  }

  /**
   * `SELECT 1` on an idle pooled connection (taking one is immediate: no connect, no queue), or on
   * the watch's own when the pool has none idle or has requests waiting for one.
   */
  private async selectOne(): Promise<void> {
    if (this.pool.idleCount > 0 && this.pool.waitingCount === 0) {
      const borrowed = await this.pool.connect();
      this.borrowed = borrowed;
      this.drop();
      try {
        await borrowed.query('SELECT 1');
      } catch (err) {
        this.giveBack(err as Error, borrowed);
        throw err;
      }
      this.giveBack(undefined, borrowed);
      return;
    }
    const client = await this.connected();
    // stopped while it connected: the connection is closed, not left open with nobody to close it
    if (this.stopped) {
      this.drop();
      return;
    }
    await client.query('SELECT 1');
  }

  /**
   * Hands the borrowed pooled connection back, once: destroyed when its probe failed or outlived
   * its deadline (a connection whose query never came back serves no request after it).
   */
  private giveBack(err?: Error, which?: PoolClient): void {
    const borrowed = this.borrowed;
    if (!borrowed || (which && which !== borrowed)) return;
    this.borrowed = undefined;
    borrowed.release(err ?? undefined);
  }

  private async connected(): Promise<Client> {
    if (this.client) return this.client;
    // the probe's own deadline fires first; this one only ends a connect nobody waits for any more
    const client = new Client({ ...pgClientConfig(this.databaseUrl), connectionTimeoutMillis: 2 * PROBE_DEADLINE_MS });
    const broken = () => {
      if (this.client !== client) return;
      this.drop();
      if (!this.stopped) void this.probe();
    };
    client.on('error', broken);
    client.on('end', broken);
    this.client = client;
    await client.connect();
    return client;
  }

  private drop(): void {
    const client = this.client;
    this.client = undefined;
    client?.end().catch(() => undefined);
  }
}

/** The rejection of `withDeadline` when the work outlived its deadline. */
export class ProbeDeadlineError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/** `work`, or a rejection (`ProbeDeadlineError`) when it has not settled within `ms`. */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ProbeDeadlineError(ms)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
