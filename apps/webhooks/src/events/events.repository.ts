import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { EventEnvelope, PublicEventType } from '@app/contracts';
import { PG_POOL, Queryable } from '@app/platform';

/** A webhook_events row as the events API reads it. */
export interface StoredEvent {
  id: string;
  envelope: EventEnvelope;
}

/** What GET /events narrows the workspace's events of one mode to. */
export interface EventFilter {
  workspaceId: string;
  livemode: boolean;
  type?: PublicEventType;
  createdGte?: Date;
  createdLte?: Date;
  /** The cursor's id: only events below it (newest first). */
  below?: string;
  limit: number;
}

/**
 * Where a reader of the stream is: after the event `id` stored by transaction `tx`. Events are
 * read in (tx, id) order, and only those below the horizon (HORIZON): a transaction of this
 * database that commits later has a greater id than every one read, so nothing can be stored
 * behind a reader's position (an event's own id orders by when it was made, not by when it was
 * stored).
 */
export interface StreamPosition {
  /** The storing transaction's id (xid8), as text. */
  tx: string;
  /** The last event read of that transaction; '' before its first. */
  id: string;
}

/** What GET /events/stream reads of the workspace's events of one mode. */
export interface StreamFilter {
  workspaceId: string;
  livemode: boolean;
  types?: readonly string[];
  after: StreamPosition;
  limit: number;
}

/**
 * The horizon of the statement's snapshot: the oldest transaction still running that may be of
 * this database, or the snapshot's xmax when none runs. Every transaction of this database below
 * it has ended, so the snapshot sees all it stored; those of the server's other databases (another
 * service's import, a migration, a test suite beside) cannot store an event and do not hold it
 * (docs/decisions.md, "GET /events/stream"). A running xid is passed over only when a backend of
 * another database holds it (pg_stat_activity, which shows datid and backend_xid of every role's
 * backends): read after the snapshot, such a row names the transaction's own database, so a race
 * can only keep an xid in (an ended backend, a slot not yet filled), never pass one of this
 * database over. Prepared transactions are never passed over. pg_stat_activity is read once per
 * transaction, so this must stay one statement of its own transaction (the pool's autocommit).
 * Running xids are compared as 32-bit xids by equality only (two running ones never share them).
 * `h` is materialized so that the horizon a read answers is the one its rows were compared with.
 */
const HORIZON = `
  s AS (SELECT pg_current_snapshot() AS snapshot),
  elsewhere AS MATERIALIZED (
    SELECT backend_xid FROM pg_stat_activity
    WHERE backend_xid IS NOT NULL AND datid <> (SELECT oid FROM pg_database WHERE datname = current_database())
  ),
  h AS MATERIALIZED (
    SELECT coalesce(
      (SELECT min(x) FROM pg_snapshot_xip(s.snapshot) AS x WHERE NOT EXISTS (SELECT FROM elsewhere WHERE backend_xid = xid(x))),
      pg_snapshot_xmax(s.snapshot)
    ) AS horizon
    FROM s
  )`;

/**
 * The statements of webhook_events: each public event stored once at consumption, read back by
 * its workspace and mode within the retention, and pruned beyond it.
 */
@Injectable()
export class EventsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** In the fan-out's transaction: one INSERT over unnest for the batch; an event stored already stays as it is. */
  async insertMany(tx: Queryable, events: EventEnvelope[]): Promise<void> {
    if (events.length === 0) return;
    await tx.query(
      `INSERT INTO webhook_events (id, workspace_id, livemode, type, created, envelope)
       SELECT u.id, u.workspace_id, u.livemode, u.type, u.created, u.envelope::json
       FROM unnest($1::text[], $2::text[], $3::bool[], $4::text[], $5::timestamptz[], $6::text[]) AS u(id, workspace_id, livemode, type, created, envelope)
       ON CONFLICT (id) DO NOTHING`,
      [
        events.map((e) => e.id), events.map((e) => e.workspace_id), events.map((e) => e.livemode === true), events.map((e) => e.type),
        events.map((e) => e.created), events.map((e) => JSON.stringify(e)),
      ],
    );
  }

  /** Newest first, keyset on the time-ordered id; one extra row to learn `has_more`. */
  async list(filter: EventFilter, retentionDays: number): Promise<StoredEvent[]> {
    const { rows } = await this.pool.query<StoredEvent>(
      `SELECT id, envelope FROM webhook_events
       WHERE workspace_id = $1 AND livemode = $2 AND created >= now() - $3 * interval '1 day'
         AND ($4::text IS NULL OR type = $4) AND ($5::timestamptz IS NULL OR created >= $5) AND ($6::timestamptz IS NULL OR created <= $6)
         AND ($7::text IS NULL OR id < $7)
       ORDER BY id DESC LIMIT $8`,
      [filter.workspaceId, filter.livemode, retentionDays, filter.type ?? null, filter.createdGte ?? null, filter.createdLte ?? null, filter.below ?? null, filter.limit + 1],
    );
    return rows;
  }

  async find(workspaceId: string, livemode: boolean, id: string, retentionDays: number): Promise<StoredEvent | undefined> {
    const { rows } = await this.pool.query<StoredEvent>(
      `SELECT id, envelope FROM webhook_events
       WHERE id = $1 AND workspace_id = $2 AND livemode = $3 AND created >= now() - $4 * interval '1 day'`,
      [id, workspaceId, livemode, retentionDays],
    );
    return rows[0];
  }

  /**
   * The final events after the position, in (tx, id) order, and the horizon of this read (HORIZON).
   * A named statement: every open stream reads once a poll, and planning it cost several times
   * running it.
   */
  async stream(filter: StreamFilter, retentionDays: number): Promise<{ rows: (StoredEvent & { tx: string })[]; horizon: string }> {
    const { rows } = await this.pool.query<{ horizon: string; id: string | null; envelope: EventEnvelope | null; tx: string | null }>({
      name: 'webhooks-events-stream',
      text: `WITH ${HORIZON}
       SELECT h.horizon::text AS horizon, e.id, e.envelope, e.tx::text AS tx
       FROM h LEFT JOIN LATERAL (
         SELECT id, envelope, tx FROM webhook_events
         WHERE workspace_id = $1 AND livemode = $2 AND (tx, id) > ($3::xid8, $4::text) AND tx < h.horizon
           AND created >= now() - $5 * interval '1 day' AND ($6::text[] IS NULL OR type = ANY ($6))
         ORDER BY tx, id LIMIT $7
       ) e ON true`,
      values: [filter.workspaceId, filter.livemode, filter.after.tx, filter.after.id, retentionDays, filter.types ?? null, filter.limit],
    });
    return {
      horizon: rows[0].horizon,
      rows: rows.filter((row) => row.id !== null).map((row) => ({ id: row.id!, envelope: row.envelope!, tx: row.tx! })),
    };
  }

  /** The position right after a stored event of the workspace's mode, within the retention. */
  async positionOf(workspaceId: string, livemode: boolean, id: string, retentionDays: number): Promise<StreamPosition | undefined> {
    const { rows } = await this.pool.query<StreamPosition>(
      `SELECT tx::text AS tx, id FROM webhook_events
       WHERE id = $1 AND workspace_id = $2 AND livemode = $3 AND created >= now() - $4 * interval '1 day'`,
      [id, workspaceId, livemode, retentionDays],
    );
    return rows[0];
  }

  /** The horizon now (HORIZON): every event stored from now on has a tx at or after it. */
  async horizon(): Promise<string> {
    const { rows } = await this.pool.query<{ horizon: string }>({ name: 'webhooks-events-horizon', text: `WITH ${HORIZON} SELECT horizon::text AS horizon FROM h` });
    return rows[0].horizon;
  }

  /** Deletes the events older than the retention; returns how many. */
  async prune(retentionDays: number): Promise<number> {
    const { rowCount } = await this.pool.query(`DELETE FROM webhook_events WHERE created < now() - $1 * interval '1 day'`, [retentionDays]);
    return rowCount ?? 0;
  }
}
