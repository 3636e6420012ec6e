import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { PG_POOL, Queryable } from '@app/platform';
import { MessageRow } from '../engine/message.mapper';

/** A reply to record: the outbound message it answers gives the lead, sequence and mailbox. */
export interface NewReply {
  id: string;
  outbound: MessageRow;
  from: string;
  subject: string;
  text: string;
  snippet: string;
  message_id: string;
  sent_at: Date | null;
}

/** Matching replies and bounces to our outbound emails, and what a reply or a hard bounce changes. */
@Injectable()
export class InboundRepository {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** The newest outbound message with one of these Message-IDs. */
  async outboundByMessageIds(ids: string[]): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>(`SELECT * FROM email_messages WHERE direction = 'outbound' AND message_id = ANY($1) ORDER BY created_at DESC LIMIT 1`, [ids]);
    return rows[0];
  }

  /** The newest sent message to a (lower-cased) recipient: a bounce that quotes no Message-ID. */
  async lastSentTo(recipient: string): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>(
      `SELECT * FROM email_messages WHERE direction = 'outbound' AND lower(to_addr) = $1 AND status = 'sent' ORDER BY created_at DESC LIMIT 1`,
      [recipient],
    );
    return rows[0];
  }

  /** The reply, or undefined when one with its Message-ID was recorded already. */
  async insertReply(db: Queryable, reply: NewReply): Promise<MessageRow | undefined> {
    const o = reply.outbound;
    const { rows } = await db.query<MessageRow>(
      `INSERT INTO email_messages (id, workspace_id, lead_id, sequence_id, enrollment_id, mailbox_id, direction, from_addr, to_addr, subject, body,
         snippet, message_id, in_reply_to, status, sent_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'inbound', $7, $8, $9, $10, $11, $12, $13, 'received', coalesce($14, date_trunc('milliseconds', now())))
       ON CONFLICT (message_id) DO NOTHING RETURNING *`,
      [reply.id, o.workspace_id, o.lead_id, o.sequence_id, o.enrollment_id, o.mailbox_id, reply.from, o.from_addr,
        reply.subject, reply.text, reply.snippet, reply.message_id, o.message_id, reply.sent_at],
    );
    return rows[0];
  }

  /** The enrollment stops `replied` unless it had ended; its id when it stopped. */
  async stopReplied(db: Queryable, enrollmentId: string | null): Promise<string | null> {
    const { rows } = await db.query<{ id: string }>(
      `UPDATE enrollments SET status = 'stopped', stop_reason = 'replied', stopped_at = date_trunc('milliseconds', now()), next_send_at = NULL
       WHERE id = $1 AND status IN ('active', 'paused') RETURNING id`,
      [enrollmentId],
    );
    return rows[0]?.id ?? null;
  }

  /** The message is `bounced`, unless it bounced already (then undefined). */
  async markBounced(db: Queryable, messageId: string, error: string): Promise<MessageRow | undefined> {
    const { rows } = await db.query<MessageRow>(
      `UPDATE email_messages SET status = 'bounced', error = $2, lease_until = NULL WHERE id = $1 AND status IN ('sent', 'queued', 'failed') RETURNING *`,
      [messageId, error],
    );
    return rows[0];
  }

  /** The enrollment stops `bounced` and its snapshot marks the email invalid. */
  async stopBounced(db: Queryable, enrollmentId: string | null): Promise<void> {
    await db.query(
      `UPDATE enrollments SET status = 'stopped', stop_reason = 'bounced', stopped_at = date_trunc('milliseconds', now()), next_send_at = NULL,
         lead = jsonb_set(lead, '{email_status}', '"invalid"')
       WHERE id = $1 AND status IN ('active', 'paused')`,
      [enrollmentId],
    );
  }

  /** The sequence's outbound emails sent (bounced ones included) and bounced. */
  async sendFigures(db: Queryable, sequenceId: string): Promise<{ sent: number; bounced: number }> {
    const { rows } = await db.query<{ sent: number; bounced: number }>(
      `SELECT count(*) FILTER (WHERE status IN ('sent', 'bounced'))::int AS sent, count(*) FILTER (WHERE status = 'bounced')::int AS bounced
       FROM email_messages WHERE sequence_id = $1 AND direction = 'outbound'`,
      [sequenceId],
    );
    return rows[0];
  }

  /** Paused for its bounce rate, unless it is no longer active. */
  async pauseForBounceRate(db: Queryable, sequenceId: string): Promise<void> {
    await db.query(`UPDATE sequences SET status = 'paused', paused_reason = 'bounce_rate' WHERE id = $1 AND status = 'active'`, [sequenceId]);
  }
}
