import { Pool } from 'pg';
import { Queryable, runPeriodically } from '@app/platform';

/** What a create's Idempotency-Key created earlier: the object's id and the request's hash. */
export interface EarlierCreate {
  id: string;
  request_hash: string;
}

/**
 * Which object each Idempotency-Key created, recorded in the create's own transaction, so a
 * retry after a gateway timeout returns that object instead of creating a second. One table
 * per kind of object (`lead_create_keys`, `task_create_keys`), kept 24 hours like the gateway's
 * idempotency records.
 */
export class CreateKeys {
  constructor(
    private readonly table: 'lead_create_keys' | 'task_create_keys',
    private readonly column: 'lead_id' | 'task_id',
  ) {}

  /**
   * Records that `key` creates `id`. Returns null when recorded; when the key already created
   * an object in the last 24 hours, returns that record instead. A concurrent holder of the key
   * makes this wait for its transaction.
   */
  async claim(db: Queryable, workspaceId: string, key: string, requestHash: string, id: string): Promise<EarlierCreate | null> {
    const claimed = await db.query(
      `INSERT INTO ${this.table} AS k (workspace_id, key, request_hash, ${this.column}) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, ${this.column} = EXCLUDED.${this.column}, created_at = now()
         WHERE k.created_at < now() - interval '24 hours'
       RETURNING 1`,
      [workspaceId, key, requestHash, id],
    );
    if (claimed.rowCount === 1) return null;
    const { rows } = await db.query<EarlierCreate>(
      `SELECT ${this.column} AS id, request_hash FROM ${this.table} WHERE workspace_id = $1 AND key = $2`,
      [workspaceId, key],
    );
    return rows[0] ?? null;
  }

  /** Deletes records older than 24 hours, hourly; returns the function that stops it. */
  sweepPeriodically(pool: Pool): () => void {
    return runPeriodically(() => pool.query(`DELETE FROM ${this.table} WHERE created_at < now() - interval '24 hours'`), 60 * 60 * 1000);
  }
}
