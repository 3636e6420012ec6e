import { Client, Pool } from 'pg';
import { Logger } from 'pino';
import { pgClientConfig } from './pg-tls';

/** How long one probe may take before the database counts as not answering. */
const PROBE_DEADLINE_MS = 2000;

/**
 * Watches whether the service's database answers, on a connection of its own (a pool saturated
 * by slow requests is busy, not lost): `SELECT 1` every interval, and at once when that
 * connection or one of the pool's idle connections breaks (a database that went away is noticed
 * in milliseconds, not at the next tick). Reports each change, up or down, to `onChange`, one at
 * a time. Nothing runs per request.
 */
export class DatabaseWatch {
  private client?: Client;
  private timer?: NodeJS.Timeout;
  private probing?: Promise<void>;
  private up = true;
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
    this.pool.off('error', this.poke);
    this.drop();
  }

  /** One probe at a time: a probe asked for while one runs shares its outcome. */
  probe(): Promise<void> {
    this.probing ??= this.check().finally(() => {
      this.probing = undefined;
    });
    return this.probing;
  }

  private async check(): Promise<void> {
    let up = true;
    let reason: string | undefined;
    try {
      const client = await this.connected();
      await withDeadline(client.query('SELECT 1'), PROBE_DEADLINE_MS);
    } catch (err) {
      up = false;
      reason = (err as Error).message;
      this.drop();
    }
    if (up === this.up || this.stopped) return;
    this.up = up;
    if (up) this.log.info('database answers again: joining the queue groups');
    else this.log.warn({ reason }, 'database does not answer: leaving the queue groups until it does');
    await this.onChange(up).catch((err: Error) => this.log.warn({ err: err.message }, 'queue-group change failed'));
  }

  private async connected(): Promise<Client> {
    if (this.client) return this.client;
    const client = new Client({ ...pgClientConfig(this.databaseUrl), connectionTimeoutMillis: PROBE_DEADLINE_MS });
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

/** `work`, or a rejection when it has not settled within `ms`. */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
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
