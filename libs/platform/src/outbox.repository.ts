import { Pool } from 'pg';
import { EventEnvelope } from '@app/contracts';
import { listenOn, Queryable } from './db';

/** An outbox row as the relay publishes it. */
export interface OutboxRow {
  seq: string;
  id: string;
  type: string;
  /** The envelope as written (JSON text), published as is. */
  envelope: string;
  trace_context: Record<string, string> | null;
}

/** The NOTIFY channel a write to the outbox wakes the relays on. */
const CHANNEL = 'outbox';

/**
 * The outbox row's columns as every append writes them (appendToOutbox, and statements that write
 * an event with its object: statementEvent): the envelope and the trace context as JSON text.
 */
export const OUTBOX_INSERT_SQL = 'INSERT INTO outbox (id, type, envelope, trace_context)';

/** The trace context column's value: the carrier as JSON text, or null without one. */
export const traceContextJson = (carrier: Record<string, string> | undefined): string | null => (carrier ? JSON.stringify(carrier) : null);

/**
 * Appends an event to the outbox in the caller's transaction (`tx`), with the trace it was
 * recorded under; with `notify`, the same statement wakes the relays of every process at commit
 * (pg_notify, NOTIFY's function form: sent at commit, dropped with a rollback). Prepared once per
 * connection.
 */
export async function appendToOutbox(tx: Queryable, envelope: EventEnvelope, traceContext: Record<string, string> | undefined, notify = true): Promise<void> {
  const values = [envelope.id, envelope.type, JSON.stringify(envelope), traceContextJson(traceContext)];
  const insert = `${OUTBOX_INSERT_SQL} VALUES ($1, $2, $3, $4)`;
  await tx.query(notify
    ? { name: 'outbox-append-notify', text: `WITH appended AS (${insert}) SELECT pg_notify('${CHANNEL}', '')`, values }
    : { name: 'outbox-append', text: insert, values });
}

/** Every statement the relay and the outbox gauges run on `outbox`. */
export class OutboxRepository {
  constructor(private readonly pool: Pool) {}

  /** Up to `limit` unpublished rows in order of writing, locked for `tx`; rows another relay holds are skipped. */
  async claimBatch(tx: Queryable, limit: number): Promise<OutboxRow[]> {
    const { rows } = await tx.query<OutboxRow>(
      `SELECT seq, id, type, envelope::text AS envelope, trace_context FROM outbox
        WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows;
  }

  /**
   * Marks rows published, in the relay's transaction, whose commit then waits for no WAL flush
   * (the one-time filter sets synchronous_commit off for that transaction only): a mark that a
   * crash or a failover loses only has the rows published again, with the same Nats-Msg-Id, which
   * the stream drops as duplicates (docs/decisions.md).
   */
  async markPublished(tx: Queryable, seqs: string[]): Promise<void> {
    await tx.query(
      `UPDATE outbox SET published_at = now() WHERE (SELECT set_config('synchronous_commit', 'off', true)) = 'off' AND seq = ANY($1::bigint[])`,
      [seqs],
    );
  }

  /** Forgets rows published more than three days ago. */
  async sweepPublished(): Promise<void> {
    await this.pool.query(`DELETE FROM outbox WHERE published_at < now() - interval '3 days'`);
  }

  /** `onNotify` on every write to the outbox (listenOn); returns the function that stops listening. */
  listen(onNotify: () => void): Promise<() => Promise<void>> {
    return listenOn(this.pool, CHANNEL, onNotify);
  }

  /** Events not yet published, and the age in seconds of the oldest (0 when none). */
  async backlog(): Promise<{ pending: number; oldestAgeSeconds: number }> {
    const { rows } = await this.pool.query<{ n: string; age: number | null }>(
      'SELECT count(*) AS n, extract(epoch FROM now() - min(created_at))::float8 AS age FROM outbox WHERE published_at IS NULL',
    );
    return { pending: Number(rows[0].n), oldestAgeSeconds: rows[0].age ?? 0 };
  }
}
