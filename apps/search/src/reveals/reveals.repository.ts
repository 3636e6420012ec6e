import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { EmailStatus, SourceRecord } from '@app/contracts';
import { PG_POOL, Queryable } from '@app/platform';

export interface RevealRow {
  id: string;
  workspace_id: string;
  entity_id: string;
  status: string;
  lead_id: string | null;
  email: string | null;
  email_status: EmailStatus | null;
  email_confidence: number | null;
  phone: string | null;
  credits_charged: number;
  sources: SourceRecord[];
  created_at: Date;
  /** The Idempotency-Key of the request that claimed it (RequestContext.idempotency), if it had one. */
  idempotency_key?: string | null;
}

/** What a completed reveal found. */
export interface RevealFindings {
  leadId: string;
  email: string | null;
  emailStatus: EmailStatus | null;
  emailConfidence: number | null;
  phone: string | null;
  sources: SourceRecord[];
}

/**
 * Reveal records, one per workspace and entity. Hand-written SQL on the pool: the claim is one
 * INSERT ... ON CONFLICT DO NOTHING whose row count says who claimed, and the outcome is written in
 * the same transaction as its outbox event (recordEvent takes the transaction's connection).
 */
@Injectable()
export class RevealsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** True when this call claimed the workspace's reveal of the entity (a `pending` row). */
  async claim(id: string, workspaceId: string, entityId: string, idempotencyKey: string | null = null): Promise<boolean> {
    // hand-written: ON CONFLICT DO NOTHING makes concurrent reveals of one entity claim it once
    const claimed = await this.pool.query(
      `INSERT INTO reveals (id, workspace_id, entity_id, status, credits_charged, idempotency_key, heartbeat_at) VALUES ($1, $2, $3, 'pending', 0, $4, now())
       ON CONFLICT (workspace_id, entity_id) DO NOTHING`,
      [id, workspaceId, entityId, idempotencyKey],
    );
    return claimed.rowCount === 1;
  }

  /**
   * The workspace's reveal of the entity, whether it is a claim older than `abandonedMs`, and
   * whether its claimer has not renewed its heartbeat for `silentMs` (`silent`).
   */
  async find(workspaceId: string, entityId: string, abandonedMs: number, silentMs = abandonedMs): Promise<(RevealRow & { abandoned: boolean; silent: boolean }) | undefined> {
    // hand-written: the row as the claim above sees it, its age judged by the database's clock
    const { rows } = await this.pool.query<RevealRow & { abandoned: boolean; silent: boolean }>(
      `SELECT *, created_at < now() - $3 * interval '1 millisecond' AS abandoned,
         coalesce(heartbeat_at, created_at) < now() - $4 * interval '1 millisecond' AS silent
       FROM reveals WHERE workspace_id = $1 AND entity_id = $2`,
      [workspaceId, entityId, abandonedMs, silentMs],
    );
    return rows[0];
  }

  /** The claimer is still at work on claim `id`. */
  async beat(id: string): Promise<void> {
    await this.pool.query(`UPDATE reveals SET heartbeat_at = now() WHERE id = $1 AND status = 'pending'`, [id]);
  }

  /**
   * Takes an abandoned claim over by restarting its clock, so that only one waiter takes it (the
   * others keep waiting, and a taker that dies is taken over in turn). True when this call took it.
   * `silent`: taken over when its claimer's heartbeat is older than `olderThanMs` instead.
   */
  async takeOver(id: string, olderThanMs: number, silent = false): Promise<boolean> {
    // hand-written: the age check and the restart are one conditional UPDATE
    const age = silent ? 'coalesce(heartbeat_at, created_at)' : 'created_at';
    const taken = await this.pool.query(
      `UPDATE reveals SET created_at = now(), heartbeat_at = now() WHERE id = $1 AND status = 'pending' AND ${age} < now() - $2 * interval '1 millisecond'`,
      [id, olderThanMs],
    );
    return taken.rowCount === 1;
  }

  async isRevealed(workspaceId: string, entityId: string): Promise<boolean> {
    // hand-written: one indexed look-up (workspace_id, entity_id) of a test key's dry run
    const { rows } = await this.pool.query<{ id: string }>(`SELECT id FROM reveals WHERE workspace_id = $1 AND entity_id = $2 AND status = 'revealed'`, [workspaceId, entityId]);
    return rows.length > 0;
  }

  /** Gives up a claim that did not complete (a completed reveal is kept). */
  async releasePending(id: string): Promise<void> {
    // hand-written: only a still-pending claim goes; the status check is in the statement
    await this.pool.query(`DELETE FROM reveals WHERE id = $1 AND status = 'pending'`, [id]);
  }

  /** Removes the claim (nothing was found) and returns its row; undefined when it was taken over meanwhile. */
  async remove(tx: Queryable, id: string): Promise<RevealRow | undefined> {
    // hand-written: DELETE ... RETURNING gives the row to render in the same statement
    const { rows } = await tx.query<RevealRow>(`DELETE FROM reveals WHERE id = $1 RETURNING *`, [id]);
    return rows[0];
  }

  /** Records what the reveal found and returns the row; undefined when the claim was taken over meanwhile. */
  async markRevealed(tx: Queryable, id: string, found: RevealFindings): Promise<RevealRow | undefined> {
    // hand-written: UPDATE ... RETURNING gives the row to render in the same statement
    const { rows } = await tx.query<RevealRow>(
      `UPDATE reveals SET status = 'revealed', lead_id = $2, email = $3, email_status = $4, email_confidence = $5, phone = $6, credits_charged = 1, sources = $7
        WHERE id = $1 AND status = 'pending' RETURNING *`,
      [id, found.leadId, found.email, found.emailStatus, found.emailConfidence, found.phone, JSON.stringify(found.sources)],
    );
    return rows[0];
  }
}
