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
 * read in (tx, id) order, and only those whose transaction ended before the oldest one still
 * running: a transaction that commits later has a greater id than every one read, so nothing can
 * be stored behind a reader's position (an event's own id orders by when it was made, not by when
 * it was stored).
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
   * The final events after the position, in (tx, id) order, and the horizon of this read: the
   * oldest transaction still running, before which every transaction has ended.
   */
  async stream(filter: StreamFilter, retentionDays: number): Promise<{ rows: (StoredEvent & { tx: string })[]; horizon: string }> {
    const { rows } = await this.pool.query<{ horizon: string; id: string | null; envelope: EventEnvelope | null; tx: string | null }>(
      `WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
       SELECT h.xmin::text AS horizon, e.id, e.envelope, e.tx::text AS tx
       FROM h LEFT JOIN LATERAL (
         SELECT id, envelope, tx FROM webhook_events
         WHERE workspace_id = $1 AND livemode = $2 AND (tx, id) > ($3::xid8, $4::text) AND tx < h.xmin
           AND created >= now() - $5 * interval '1 day' AND ($6::text[] IS NULL OR type = ANY ($6))
         ORDER BY tx, id LIMIT $7
       ) e ON true`,
      [filter.workspaceId, filter.livemode, filter.after.tx, filter.after.id, retentionDays, filter.types ?? null, filter.limit],
    );
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

  /** The oldest transaction still running: every event stored from now on has a tx at or after it. */
  async horizon(): Promise<string> {
    const { rows } = await this.pool.query<{ horizon: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon');
    return rows[0].horizon;
  }

  /** Deletes the events older than the retention; returns how many. */
  async prune(retentionDays: number): Promise<number> {
    const { rowCount } = await this.pool.query(`DELETE FROM webhook_events WHERE created < now() - $1 * interval '1 day'`, [retentionDays]);
    return rowCount ?? 0;
  }
}
