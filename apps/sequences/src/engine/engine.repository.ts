import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { backlogGauge, PG_POOL, Queryable, TraceCarrier } from '@app/platform';
import { MessageRow } from './message.mapper';
import { EnrollmentRow } from '../enrollments/enrollment.mapper';
import { ClaimedEnrollment } from './step-decision';

/** A claimed enrollment, with the trace its emails continue. */
export interface ClaimedRow extends ClaimedEnrollment {
  trace_context: TraceCarrier | null;
}

/** An email the engine records as `queued` before it hands it to SMTP. */
export interface QueuedEmail {
  id: string;
  enrollment: ClaimedRow;
  step_position: number;
  mailbox: { id: string; email: string };
  subject: string;
  body: string;
  snippet: string;
  message_id: string;
  lease_until: Date;
}

/**
 * The sending engine's statements. Hand-written: the claims (due enrollments, stale queued
 * emails) use FOR UPDATE SKIP LOCKED so replicas never claim the same row, and every write after
 * a claim runs in the claiming transaction or is fenced by the message's `attempts`.
 */
@Injectable()
export class EngineRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** `sequences_enrollments_due` at each scrape: active enrollments whose next email is due now. */
  observeBacklog(): void {
    backlogGauge('sequences_enrollments_due', 'Active enrollments whose next email is due now (the engine has not sent it yet)', this.pool,
      `SELECT count(*) AS n FROM enrollments WHERE status = 'active' AND next_send_at <= now()`);
  }

  /** How far the test clock runs ahead (SEQUENCES_TEST_CLOCK=on only). */
  async testClockOffsetMs(): Promise<number> {
    const { rows } = await this.pool.query<{ offset_ms: string }>('SELECT offset_ms FROM test_clock');
    return Number(rows[0]?.offset_ms ?? 0);
  }

  /** Hand-written claim: due enrollments of active sequences, oldest due first, skipping rows another replica holds. */
  async claimDue(db: Queryable, now: Date, limit: number): Promise<ClaimedRow[]> {
    const { rows } = await db.query<ClaimedRow>(
      `SELECT e.id, e.workspace_id, e.sequence_id, e.lead_id, e.email, e.lead, e.status, e.current_step, e.next_send_at, e.hold_reason,
              e.last_mailbox_id, e.enrolled_at, e.stopped_at, e.stop_reason, e.trace_context, s.mailbox_ids, s.business_days_only
       FROM enrollments e JOIN sequences s ON s.id = e.sequence_id
       WHERE e.status = 'active' AND e.next_send_at <= $1 AND s.status = 'active'
       ORDER BY e.next_send_at LIMIT $2
       FOR UPDATE OF e SKIP LOCKED`,
      [now, limit],
    );
    return rows;
  }

  /** Outbound emails of the mailbox recorded since `since` (its local midnight), cancelled ones aside. */
  async outboundSince(db: Queryable, mailboxId: string, since: Date): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM email_messages WHERE mailbox_id = $1 AND direction = 'outbound' AND created_at >= $2 AND status <> 'cancelled'`,
      [mailboxId, since],
    );
    return rows[0].n;
  }

  /** decision `complete`: the enrollment as it is now. */
  async complete(db: Queryable, enrollmentId: string): Promise<EnrollmentRow> {
    const { rows } = await db.query<EnrollmentRow>(`UPDATE enrollments SET status = 'completed', next_send_at = NULL WHERE id = $1 RETURNING *`, [enrollmentId]);
    return rows[0];
  }

  /** decision `wait`: past the wait step, the next one due at `nextSendAt`. */
  async passWait(db: Queryable, enrollmentId: string, nextSendAt: Date): Promise<void> {
    await db.query('UPDATE enrollments SET current_step = current_step + 1, next_send_at = $2 WHERE id = $1', [enrollmentId, nextSendAt]);
  }

  /** decisions `suppressed` and `bounced`: the enrollment stops for that reason. */
  async stop(db: Queryable, enrollmentId: string, reason: 'suppressed' | 'bounced'): Promise<void> {
    await db.query(
      `UPDATE enrollments SET status = 'stopped', stop_reason = $2, stopped_at = date_trunc('milliseconds', now()), next_send_at = NULL WHERE id = $1`,
      [enrollmentId, reason],
    );
  }

  /** decision `hold`: no next send until the lead changes. */
  async hold(db: Queryable, enrollmentId: string, reason: string): Promise<void> {
    await db.query('UPDATE enrollments SET next_send_at = NULL, hold_reason = $2 WHERE id = $1', [enrollmentId, reason]);
  }

  /** decision `later`: due again at `nextSendAt`. */
  async postpone(db: Queryable, enrollmentId: string, nextSendAt: Date): Promise<void> {
    await db.query('UPDATE enrollments SET next_send_at = $2 WHERE id = $1', [enrollmentId, nextSendAt]);
  }

  /** decision `send`: the email `queued`, or undefined when this step's email was recorded already. */
  async queue(db: Queryable, email: QueuedEmail): Promise<MessageRow | undefined> {
    const e = email.enrollment;
    const { rows } = await db.query<MessageRow>(
      `INSERT INTO email_messages (id, workspace_id, lead_id, sequence_id, enrollment_id, step_position, mailbox_id, direction, from_addr, to_addr,
         subject, body, snippet, message_id, status, lease_until, trace_context)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'outbound', $8, $9, $10, $11, $12, $13, 'queued', $14, $15)
       ON CONFLICT DO NOTHING RETURNING *`,
      [email.id, e.workspace_id, e.lead_id, e.sequence_id, e.id, email.step_position, email.mailbox.id, email.mailbox.email, e.email, email.subject, email.body,
        email.snippet, email.message_id, email.lease_until, e.trace_context && JSON.stringify(e.trace_context)],
    );
    return rows[0];
  }

  /** decision `send`: past the email step, the next one due at once, the mailbox remembered for the round robin. */
  async passEmail(db: Queryable, enrollmentId: string, now: Date, mailboxId: string): Promise<void> {
    await db.query('UPDATE enrollments SET current_step = current_step + 1, next_send_at = $2, last_mailbox_id = $3, hold_reason = NULL WHERE id = $1', [
      enrollmentId, now, mailboxId,
    ]);
  }

  /** Hand-written claim: queued emails whose lease ran out (their sender died), each lease renewed and its attempt counted. */
  async claimStale(expiredBefore: Date, leaseUntil: Date, limit: number): Promise<MessageRow[]> {
    const { rows } = await this.pool.query<MessageRow>(
      `UPDATE email_messages SET lease_until = $2, attempts = attempts + 1
       WHERE id IN (SELECT id FROM email_messages WHERE status = 'queued' AND lease_until < $1 ORDER BY lease_until LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [expiredBefore, leaseUntil, limit],
    );
    return rows;
  }

  /** The lease renewed, fenced by `attempts`: false when another replica took the email over meanwhile. */
  async renewLease(messageId: string, attempts: number, leaseUntil: Date): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE email_messages SET lease_until = $3 WHERE id = $1 AND status = 'queued' AND attempts = $2`,
      [messageId, attempts, leaseUntil],
    );
    return rowCount === 1;
  }

  /** A refused hand-off: `failed` when permanent or the fifth attempt, else retried after a growing delay. */
  async recordHandOffFailure(messageId: string, attempts: number, permanent: boolean, error: string): Promise<void> {
    await this.pool.query(
      `UPDATE email_messages SET status = CASE WHEN $2 OR attempts >= 5 THEN 'failed' ELSE status END, error = $3,
         lease_until = now() + make_interval(secs => 30 * (attempts + 1))
       WHERE id = $1 AND status = 'queued' AND attempts = $4`,
      [messageId, permanent, error, attempts],
    );
  }

  async findMessage(messageId: string): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>(`SELECT * FROM email_messages WHERE id = $1`, [messageId]);
    return rows[0];
  }

  /** The email `sent`, unless it is no longer queued (then undefined). */
  async markSent(db: Queryable, messageId: string): Promise<MessageRow | undefined> {
    const { rows } = await db.query<MessageRow>(
      `UPDATE email_messages SET status = 'sent', sent_at = date_trunc('milliseconds', now()), lease_until = NULL, error = NULL
       WHERE id = $1 AND status = 'queued' RETURNING *`,
      [messageId],
    );
    return rows[0];
  }
}
