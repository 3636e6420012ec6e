import { Pool } from 'pg';
import { RequestContext } from '@app/contracts';
import { Queryable } from './db';
import { DomainError } from './domain-error';
import { runPeriodically } from './periodic';

/** What a create's Idempotency-Key created earlier: the object's id and the request's hash. */
export interface EarlierCreate {
  id: string;
  request_hash: string;
}

export interface CreateKeysTable {
  /** `(workspace_id, key, request_hash, <column>, created_at)` with primary key `(workspace_id, key)`. */
  table: string;
  /** The column holding the created object's id. */
  column: string;
  /** How errors name the object (`lead`); without it they give only its id. */
  noun?: string;
}

/**
 * A create that a retry after a gateway timeout answers with the object the first attempt made,
 * never a second one: which object each Idempotency-Key created is recorded in the create's own
 * transaction, one table per kind of object, kept 24 hours like the gateway's idempotency
 * records. The gateway replays keys it saw answered; this covers the create it never heard back
 * from. The statements are hand-written: an upsert whose conflict branch only takes over an
 * expired key, so a concurrent holder of the key makes the claim wait for its transaction.
 */
export class IdempotentCreate {
  constructor(private readonly keys: CreateKeysTable) {}

  /**
   * Inside the create's transaction on `db`, before its writes (so a create that fails releases
   * the key with it): runs `create` unless the request's key already created an object; then
   * answers `earlier(id)` of that object. The key used with another request, or naming an object
   * deleted since, is a conflict on `Idempotency-Key`.
   */
  async run<T>(
    db: Queryable,
    ctx: RequestContext,
    id: string,
    create: () => Promise<T>,
    earlier: (id: string) => Promise<T | undefined>,
  ): Promise<T> {
    if (!ctx.idempotency) return create();
    const made = await this.claim(db, ctx.workspace_id, ctx.idempotency.key, ctx.idempotency.request_hash, id);
    if (!made) return create();
    if (made.request_hash !== ctx.idempotency.request_hash) {
      throw DomainError.conflict('This Idempotency-Key was already used with a different request', 'Idempotency-Key');
    }
    const outcome = await earlier(made.id);
    if (outcome === undefined) {
      const named = this.keys.noun ? `${this.keys.noun} ${made.id}` : made.id;
      throw DomainError.conflict(`This Idempotency-Key already created ${named}, which has since been deleted`, 'Idempotency-Key');
    }
    return outcome;
  }

  /**
   * Records that `key` creates `id`. Returns null when recorded; when the key already created
   * an object in the last 24 hours, returns that record instead.
   */
  async claim(db: Queryable, workspaceId: string, key: string, requestHash: string, id: string): Promise<EarlierCreate | null> {
    const { table, column } = this.keys;
    const claimed = await db.query(
      `INSERT INTO ${table} AS k (workspace_id, key, request_hash, ${column}) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, ${column} = EXCLUDED.${column}, created_at = now()
         WHERE k.created_at < now() - interval '24 hours'
       RETURNING 1`,
      [workspaceId, key, requestHash, id],
    );
    if (claimed.rowCount === 1) return null;
    const { rows } = await db.query<EarlierCreate>(`SELECT ${column} AS id, request_hash FROM ${table} WHERE workspace_id = $1 AND key = $2`, [
      workspaceId,
      key,
    ]);
    return rows[0] ?? null;
  }

  /** Deletes records older than 24 hours, hourly; returns the function that stops it. */
  sweepPeriodically(pool: Pool): () => void {
    return runPeriodically(() => pool.query(`DELETE FROM ${this.keys.table} WHERE created_at < now() - interval '24 hours'`), 60 * 60 * 1000);
  }
}
