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

  /** Deletes the events older than the retention; returns how many. */
  async prune(retentionDays: number): Promise<number> {
    const { rowCount } = await this.pool.query(`DELETE FROM webhook_events WHERE created < now() - $1 * interval '1 day'`, [retentionDays]);
    return rowCount ?? 0;
  }
}
