import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { EmailStatus, SourceRecord } from '@app/contracts';
import { claimOwnerGone, claimOwnerStale, forgetGoneClaimOwners, PG_POOL, Queryable } from '@app/platform';
import { REVEAL_CLAIM_OWNERS } from './reveal-owner';

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
  /** The search process that holds the claim (RevealOwner), or took it over. */
  owner?: string | null;
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

  /** True when this call claimed the workspace's reveal of the entity (a `pending` row owned by `owner`, this process). */
  async claim(id: string, workspaceId: string, entityId: string, idempotencyKey: string | null, owner: string): Promise<boolean> {
    // hand-written: ON CONFLICT DO NOTHING makes concurrent reveals of one entity claim it once
    const claimed = await this.pool.query(
      `INSERT INTO reveals (id, workspace_id, entity_id, status, credits_charged, idempotency_key, owner) VALUES ($1, $2, $3, 'pending', 0, $4, $5)
       ON CONFLICT (workspace_id, entity_id) DO NOTHING`,
      [id, workspaceId, entityId, idempotencyKey, owner],
    );
    return claimed.rowCount === 1;
  }

  /**
   * The workspace's reveal of the entity; for a claim, whether it is older than `abandonedMs`, and
   * whether its owner's heartbeat is older than `staleMs` (`stale`: its owner may be gone, which
   * takeOver decides by the owner's liveness lock).
   */
  async find(workspaceId: string, entityId: string, abandonedMs: number, staleMs: number): Promise<(RevealRow & { abandoned: boolean; stale: boolean }) | undefined> {
    // hand-written: the row as the claim above sees it, its age and its owner's heartbeat judged by the database's clock
    const { rows } = await this.pool.query<RevealRow & { abandoned: boolean; stale: boolean }>(
      `SELECT r.*, r.created_at < now() - $3 * interval '1 millisecond' AS abandoned,
         ${claimOwnerStale(REVEAL_CLAIM_OWNERS, 'r.owner', 4)} AS stale
       FROM reveals r WHERE r.workspace_id = $1 AND r.entity_id = $2`,
      [workspaceId, entityId, abandonedMs, staleMs],
    );
    return rows[0];
  }

  /**
   * Takes claim `id` over for `owner` (this process) when it is older than `abandonedMs` (a claim
   * without an owner, or an owner that looks alive but never finishes) or its owner is gone (no
   * fresh heartbeat within `staleMs` and its liveness lock free: the process died, however young
   * the claim): the claim's clock restarts and it names the taker, so the other waiters keep
   * waiting on a live owner (and a taker that dies is taken over in turn). True when this call took it.
   */
  async takeOver(id: string, owner: string, abandonedMs: number, staleMs: number): Promise<boolean> {
    // hand-written: the owner's liveness, the age check and the restart are one conditional UPDATE
    const taken = await this.pool.query(
      `UPDATE reveals r SET created_at = now(), owner = $2 WHERE r.id = $1 AND r.status = 'pending'
         AND (r.created_at < now() - $3 * interval '1 millisecond' OR ${claimOwnerGone(REVEAL_CLAIM_OWNERS, 'r.owner', 4, 5)})`,
      [id, owner, abandonedMs, staleMs, REVEAL_CLAIM_OWNERS.lockClass],
    );
    return taken.rowCount === 1;
  }

  /** Forgets processes whose heartbeat stopped long ago (a killed one leaves its row behind). */
  async sweepOwners(): Promise<void> {
    await forgetGoneClaimOwners(this.pool, REVEAL_CLAIM_OWNERS);
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

  /** Removes `owner`'s claim (nothing was found) and returns its row; undefined when it was taken over meanwhile. */
  async remove(tx: Queryable, id: string, owner: string): Promise<RevealRow | undefined> {
    // hand-written: DELETE ... RETURNING gives the row to render in the same statement
    const { rows } = await tx.query<RevealRow>(`DELETE FROM reveals WHERE id = $1 AND owner = $2 RETURNING *`, [id, owner]);
    return rows[0];
  }

  /** Records what `owner`'s reveal found and returns the row; undefined when the claim was taken over meanwhile. */
  async markRevealed(tx: Queryable, id: string, owner: string, found: RevealFindings): Promise<RevealRow | undefined> {
    // hand-written: UPDATE ... RETURNING gives the row to render in the same statement
    const { rows } = await tx.query<RevealRow>(
      `UPDATE reveals SET status = 'revealed', lead_id = $2, email = $3, email_status = $4, email_confidence = $5, phone = $6, credits_charged = 1, sources = $7
        WHERE id = $1 AND status = 'pending' AND owner = $8 RETURNING *`,
      [id, found.leadId, found.email, found.emailStatus, found.emailConfidence, found.phone, JSON.stringify(found.sources), owner],
    );
    return rows[0];
  }
}
