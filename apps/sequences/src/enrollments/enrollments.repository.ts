import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { LeadContact } from '@app/contracts';
import { PG_POOL, Queryable } from '@app/platform';
import { ENROLLMENT_COLUMNS, EnrollmentRow } from './enrollment.mapper';

/** One lead to enroll: its id, its contact snapshot and the new enrollment's id. */
export interface NewEnrollment {
  id: string;
  lead: LeadContact & { email: string };
}

/** Enrollments of leads in sequences; every query but the token's is scoped by workspace. */
@Injectable()
export class EnrollmentsRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /**
   * Those of `leadIds` already enrolled in the sequence (whatever their status), and the
   * enrollments among them made by a request with `idempotencyKey` (an earlier attempt of it).
   */
  async enrolledAlready(sequenceId: string, leadIds: string[], idempotencyKey: string | null): Promise<{ leadIds: Set<string>; byKey: EnrollmentRow[] }> {
    const { rows } = await this.pool.query<EnrollmentRow & { by_key: boolean }>(
      `SELECT ${ENROLLMENT_COLUMNS}, idempotency_key = $3 AS by_key FROM enrollments WHERE sequence_id = $1 AND lead_id = ANY($2)`,
      [sequenceId, leadIds, idempotencyKey],
    );
    return { leadIds: new Set(rows.map((r) => r.lead_id)), byKey: rows.filter((r) => r.by_key).map(({ by_key: _, ...row }) => row) };
  }

  /**
   * One statement for the batch (unnest): a lead enrolled concurrently is skipped by the unique
   * (sequence, lead) key, so the rows returned are the enrollments this call made.
   */
  async insertMany(workspaceId: string, sequenceId: string, enrollments: NewEnrollment[], traceContext: string | null, idempotencyKey: string | null = null): Promise<EnrollmentRow[]> {
    const { rows } = await this.pool.query<EnrollmentRow>(
      `INSERT INTO enrollments (id, workspace_id, sequence_id, lead_id, email, lead, next_send_at, trace_context, idempotency_key)
       SELECT id, $1, $2, lead_id, email, lead, date_trunc('milliseconds', now()), $7::json, $8
       FROM unnest($3::text[], $4::text[], $5::text[], $6::jsonb[]) AS t(id, lead_id, email, lead)
       ON CONFLICT (sequence_id, lead_id) DO NOTHING
       RETURNING ${ENROLLMENT_COLUMNS}`,
      [
        workspaceId, sequenceId, enrollments.map((e) => e.id), enrollments.map((e) => e.lead.id),
        enrollments.map((e) => e.lead.email), enrollments.map((e) => JSON.stringify(e.lead)), traceContext, idempotencyKey,
      ],
    );
    return rows;
  }

  /**
   * `removed` (how it had ended kept in `ended_before_removal`); undefined when the lead is not
   * enrolled or was removed already.
   */
  async remove(db: Queryable, workspaceId: string, sequenceId: string, leadId: string): Promise<EnrollmentRow | undefined> {
    const { rows } = await db.query<EnrollmentRow>(
      `UPDATE enrollments SET status = 'stopped', stop_reason = 'removed', stopped_at = date_trunc('milliseconds', now()), next_send_at = NULL, hold_reason = NULL,
         ended_before_removal = CASE WHEN status = 'completed' THEN 'completed' WHEN status = 'stopped' THEN stop_reason END
       WHERE workspace_id = $1 AND sequence_id = $2 AND lead_id = $3 AND stop_reason IS DISTINCT FROM 'removed'
       RETURNING ${ENROLLMENT_COLUMNS}`,
      [workspaceId, sequenceId, leadId],
    );
    return rows[0];
  }

  async find(db: Queryable, workspaceId: string, sequenceId: string, leadId: string): Promise<EnrollmentRow | undefined> {
    const { rows } = await db.query<EnrollmentRow>(
      `SELECT ${ENROLLMENT_COLUMNS} FROM enrollments WHERE workspace_id = $1 AND sequence_id = $2 AND lead_id = $3`,
      [workspaceId, sequenceId, leadId],
    );
    return rows[0];
  }

  /** Whom an unsubscribe link of the enrollment was sent to (the signed token names only the enrollment). */
  async recipientOf(enrollmentId: string): Promise<{ workspace_id: string; email: string } | undefined> {
    const { rows } = await this.pool.query<{ workspace_id: string; email: string }>('SELECT workspace_id, email FROM enrollments WHERE id = $1', [enrollmentId]);
    return rows[0];
  }

  /** Queued emails of the enrollments are cancelled: none of them is handed to SMTP any more. */
  async cancelQueuedMessages(db: Queryable, enrollmentIds: (string | null)[]): Promise<void> {
    await db.query(`UPDATE email_messages SET status = 'cancelled', lease_until = NULL WHERE enrollment_id = ANY($1) AND status = 'queued'`, [enrollmentIds]);
  }

  /**
   * The lead's enrollments, locked in id order (the engine claims enrollments FOR UPDATE: a step
   * being claimed right now is either finished or never claimed), for the consumer of `lead.deleted`.
   */
  async lockEnrollmentsOfLead(db: Queryable, workspaceId: string, leadId: string): Promise<string[]> {
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM enrollments WHERE workspace_id = $1 AND lead_id = $2 ORDER BY id FOR UPDATE`,
      [workspaceId, leadId],
    );
    return rows.map((r) => r.id);
  }

  async deleteEnrollments(db: Queryable, ids: string[]): Promise<void> {
    await db.query(`DELETE FROM enrollments WHERE id = ANY($1)`, [ids]);
  }

  /**
   * The lead's live enrollments take its new contact snapshot unless they hold a newer one; a held
   * lead (next_send_at null: the engine found it due and could not send) is due again now.
   */
  async followLeadSnapshot(db: Queryable, workspaceId: string, snapshot: LeadContact & { updated_at: string }): Promise<void> {
    await db.query(
      `UPDATE enrollments SET lead = $3::jsonb, email = COALESCE($4, email),
         next_send_at = CASE WHEN next_send_at IS NULL AND hold_reason IS NOT NULL THEN date_trunc('milliseconds', now()) ELSE next_send_at END
       WHERE workspace_id = $1 AND lead_id = $2 AND status IN ('active', 'paused')
         AND (lead->>'updated_at' IS NULL OR lead->>'updated_at' <= $5)`,
      [workspaceId, snapshot.id, JSON.stringify(snapshot), snapshot.email, snapshot.updated_at],
    );
  }
}
