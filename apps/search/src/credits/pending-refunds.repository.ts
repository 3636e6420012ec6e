import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { RequestContext } from '@app/contracts';
import { PG_POOL } from '@app/platform';

export interface PendingRefund {
  ref: string;
  ctx: RequestContext;
  reason: string;
}

/** Refunds billing could not take when they were due, kept until it answers one. */
@Injectable()
export class PendingRefundsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** Queues a refund once per ref (refunds are idempotent by ref, so a second queueing adds nothing). */
  async queue(refund: PendingRefund): Promise<void> {
    // hand-written: ON CONFLICT DO NOTHING keeps the first queueing in one statement
    await this.pool.query('INSERT INTO pending_refunds (ref, ctx, reason) VALUES ($1, $2, $3) ON CONFLICT (ref) DO NOTHING', [
      refund.ref, JSON.stringify(refund.ctx), refund.reason,
    ]);
  }

  /** The 50 oldest queued refunds no other replica is retrying, each counted as one more attempt. */
  async claimOldest(): Promise<PendingRefund[]> {
    // hand-written: FOR UPDATE SKIP LOCKED lets replicas retry different refunds at once
    const { rows } = await this.pool.query<PendingRefund>(
      'UPDATE pending_refunds SET attempts = attempts + 1 WHERE ref IN (SELECT ref FROM pending_refunds ORDER BY created_at LIMIT 50 FOR UPDATE SKIP LOCKED) RETURNING ref, ctx, reason',
    );
    return rows;
  }

  async remove(ref: string): Promise<void> {
    await this.pool.query('DELETE FROM pending_refunds WHERE ref = $1', [ref]);
  }
}
