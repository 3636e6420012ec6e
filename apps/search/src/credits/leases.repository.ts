import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { CreditPool, RequestContext } from '@app/contracts';
import { PG_POOL, pgArrayLiteral, UnitOfWork } from '@app/platform';

/** What search_lease_take answers for a page's ref (migration 1764000016000). */
export type TakeStatus = 'taken' | 'already' | 'refunded' | 'none';

/** A lease to settle: its id, the context it was taken with, and the pages charged against it. */
export interface ClosingLease {
  id: string;
  ctx: RequestContext;
}

/**
 * Every statement on search's credit_leases and credit_lease_pages (migration 1764000016000).
 * Hand-written: state changes are single UPDATEs whose WHERE names the state they leave, so two
 * replicas (or a replica and the sweeper) never both move a lease, and a page is charged only
 * against a lease that is open when its statement locks it.
 */
@Injectable()
export class LeasesRepository {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly uow: UnitOfWork,
  ) {}

  /**
   * Charges a group of one workspace's pages, one status per ref in order, and says the room the
   * workspace's open leases have left after it (migration 1764000025000); named, planned once per
   * connection.
   */
  async take(workspaceId: string, refs: string[]): Promise<{ statuses: TakeStatus[]; room: number }> {
    const { rows } = await this.pool.query<{ out_status: TakeStatus; out_room: number }>({
      name: 'search-lease-take', text: 'SELECT out_status, out_room FROM search_lease_take($1, $2)', values: [workspaceId, pgArrayLiteral(refs)],
    });
    return { statuses: rows.map((row) => row.out_status), room: rows.length > 0 ? rows[0].out_room : 0 };
  }

  /** A lease about to be asked of billing: recorded first, so that a lease billing grants is never unknown here. */
  async insertPending(id: string, ctx: RequestContext, ttlMs: number): Promise<void> {
    await this.pool.query(`INSERT INTO credit_leases (id, workspace_id, state, ctx, expires_at) VALUES ($1, $2, 'pending', $3, now() + $4 * interval '1 millisecond')`, [
      id, ctx.workspace_id, JSON.stringify(ctx), ttlMs,
    ]);
  }

  /** Billing's grant: the lease opens, unless the sweeper gave its request up meanwhile (false). */
  async open(id: string, size: number, pool: CreditPool, ttlMs: number): Promise<boolean> {
    const opened = await this.pool.query(
      `UPDATE credit_leases SET state = 'open', size = $2, pool = $3, expires_at = now() + $4 * interval '1 millisecond', last_used_at = now() WHERE id = $1 AND state = 'pending'`,
      [id, size, pool, ttlMs],
    );
    return opened.rowCount === 1;
  }

  /** A lease billing granted nothing for, or whose request had no answer: closed, for a settle that closes its id at billing too. */
  async giveUp(id: string): Promise<void> {
    await this.pool.query(`UPDATE credit_leases SET state = 'closing' WHERE id = $1 AND state = 'pending'`, [id]);
  }

  /**
   * Closes open leases (no page is charged against them after this) that are idle, past their
   * time or full, and pending ones whose request was given up; with a workspace, every open or
   * pending lease of it. The ids of the leases now closing.
   */
  async close(opts: { workspaceId?: string; idleMs?: number; pendingMs?: number }): Promise<string[]> {
    const { rows } = opts.workspaceId !== undefined
      ? await this.pool.query<{ id: string }>(
        `UPDATE credit_leases SET state = 'closing' WHERE workspace_id = $1 AND state IN ('open', 'pending') RETURNING id`, [opts.workspaceId])
      : await this.pool.query<{ id: string }>(
        `UPDATE credit_leases SET state = 'closing'
          WHERE (state = 'open' AND (used >= size OR expires_at <= now() OR last_used_at < now() - $1 * interval '1 millisecond'))
             OR (state = 'pending' AND created_at < now() - $2 * interval '1 millisecond')
          RETURNING id`, [opts.idleMs, opts.pendingMs]);
    return rows.map((row) => row.id);
  }

  /** Leases closed and not yet settled (of a workspace, or any), oldest first. */
  async closing(workspaceId?: string, limit = 100): Promise<ClosingLease[]> {
    const { rows } = await this.pool.query<ClosingLease>(
      `SELECT id, ctx FROM credit_leases WHERE state = 'closing' AND ($1::text IS NULL OR workspace_id = $1) ORDER BY created_at LIMIT $2`,
      [workspaceId ?? null, limit],
    );
    return rows;
  }

  /** The pages charged against a closed lease and not refunded: what billing charges at its settle. */
  async pagesOf(leaseId: string): Promise<{ ref: string; at: string }[]> {
    const { rows } = await this.pool.query<{ ref: string; at: Date }>('SELECT ref, taken_at AS at FROM credit_lease_pages WHERE lease_id = $1 AND NOT refunded', [leaseId]);
    return rows.map((row) => ({ ref: row.ref, at: row.at.toISOString() }));
  }

  async markSettled(leaseId: string): Promise<void> {
    await this.pool.query(`UPDATE credit_leases SET state = 'settled', settled_at = now() WHERE id = $1 AND state = 'closing'`, [leaseId]);
  }

  /**
   * A charged page's refund: marked refunded (once), and its credit back in its lease while the
   * lease is open. 'lease' when it went back to the lease, 'billing' when the lease is closed
   * (its settle may carry the page: billing must refund the ref), 'none' when the ref was never
   * charged here or was refunded before.
   */
  async refund(workspaceId: string, ref: string): Promise<'lease' | 'billing' | 'none'> {
    return this.uow.run(async (tx) => {
      const { rows } = await tx.query<{ lease_id: string }>(
        'UPDATE credit_lease_pages SET refunded = true WHERE workspace_id = $1 AND ref = $2 AND NOT refunded RETURNING lease_id', [workspaceId, ref]);
      if (rows.length === 0) return 'none';
      const back = await tx.query(`UPDATE credit_leases SET used = used - 1 WHERE id = $1 AND state = 'open'`, [rows[0].lease_id]);
      return back.rowCount === 1 ? 'lease' : 'billing';
    });
  }

  /** Whether a lease of the workspace may still take a page or give credits back: open with room, pending, or closing with room. */
  async anyLive(workspaceId: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ live: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM credit_leases WHERE workspace_id = $1
         AND (state = 'pending' OR (state IN ('open', 'closing') AND used < size AND (state = 'closing' OR expires_at > now())))) AS live`,
      [workspaceId],
    );
    return rows[0].live;
  }

  /** Whether the workspace has a lease not settled yet. */
  async anyUnsettled(workspaceId: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM credit_leases WHERE workspace_id = $1 AND state <> 'settled') AS any`, [workspaceId]);
    return rows[0].any;
  }

  /**
   * Forgets the oldest leases settled more than `keepMs` ago, with their pages (a retry of a page
   * comes within seconds; one older than that is a new page), about `maxPages` pages at most: the
   * oldest leases charged with fewer than `maxPages` pages before them (so at least one), in one
   * statement, by the settled leases' index (migration 1764000026000). Says how many went.
   */
  async forgetSettled(keepMs: number, maxPages: number): Promise<{ leases: number; pages: number }> {
    const { rows } = await this.pool.query<{ leases: number; pages: number }>({
      name: 'search-lease-forget',
      text: `WITH old AS (SELECT id, used, settled_at FROM credit_leases
                          WHERE state = 'settled' AND settled_at < now() - $1 * interval '1 millisecond'
                          ORDER BY settled_at, id LIMIT 100),
                  counted AS (SELECT id, sum(used) OVER (ORDER BY settled_at, id) - used AS before FROM old),
                  leases AS (DELETE FROM credit_leases WHERE id IN (SELECT id FROM counted WHERE before < $2) RETURNING id),
                  pages AS (DELETE FROM credit_lease_pages WHERE lease_id IN (SELECT id FROM leases) RETURNING 1)
             SELECT (SELECT count(*) FROM leases)::int AS leases, (SELECT count(*) FROM pages)::int AS pages`,
      values: [keepMs, maxPages],
    });
    return rows[0];
  }
}
