import { Inject, Injectable } from '@nestjs/common';
import { simpleParser } from 'mailparser';
import { Pool, PoolClient } from 'pg';
import { CURRENT_API_VERSION, EVENT, ID_PREFIX, RequestContext } from '@app/contracts';
import { newId, PG_POOL, recordEvent, withTransaction } from '@app/platform';
import { MessageRow, renderMessage, snippetOf } from '../rows';
import { SuppressionsService } from '../suppressions/suppressions.service';
import { isAutoReply, parseDeliveryStatus, referencedIds } from './classify';
import { asksToUnsubscribe } from './unsubscribe-request';

export type InboundOutcome =
  | { kind: 'reply'; message_id: string; enrollment_id: string | null }
  | { kind: 'unsubscribe_reply'; message_id: string; suppression_id: string | null }
  | { kind: 'auto_reply'; message_id: string | null }
  | { kind: 'hard_bounce'; message_id: string; status: string }
  | { kind: 'soft_bounce'; message_id: string | null; status: string }
  | { kind: 'unmatched' };

/** Bounce rate that pauses a sequence, once it has sent at least BOUNCE_MIN_SENT emails. */
const BOUNCE_PAUSE_RATE = 0.05;
const BOUNCE_MIN_SENT = 20;

/**
 * Replies and bounces: a raw RFC 822 message (the IMAP poller, `imap-poller.ts`, or the intake
 * `sequences.inbound.raw`) is parsed with mailparser and matched to one of our outbound messages
 * by Message-ID. Handling one message twice changes nothing the second time (a reply is unique
 * by its Message-ID, a bounce changes only a message not yet bounced).
 */
@Injectable()
export class InboundService {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly suppressions: SuppressionsService,
  ) {}

  /**
   * `fallbackMessageId` names a reply that carries no Message-ID of its own (the IMAP poller
   * passes one derived from mailbox, UIDVALIDITY and UID), so handling it again records nothing.
   */
  async intake(raw: string | Buffer, options: { fallbackMessageId?: string } = {}): Promise<InboundOutcome> {
    const parsed = await simpleParser(raw);
    const subject = parsed.subject ?? '';
    const contentType = String((parsed.headers.get('content-type') as { value?: string; params?: Record<string, string> })?.params?.['report-type'] ?? '');
    const dsnPart = parsed.attachments.find((a) => /message\/(global-)?delivery-status/i.test(a.contentType));
    if (dsnPart || contentType.toLowerCase() === 'delivery-status') {
      const status = parseDeliveryStatus(dsnPart ? dsnPart.content.toString('utf8') : parsed.text ?? '');
      const original = parsed.attachments.find((a) => /message\/rfc822|text\/rfc822-headers/i.test(a.contentType));
      const originalId = original ? /^Message-ID:\s*(<[^>]+>)/im.exec(original.content.toString('utf8'))?.[1] : undefined;
      const outbound = await this.findOutbound(originalId ? [originalId] : referencedIds(parsed.inReplyTo, parsed.references), status?.recipient ?? null);
      if (!status) return { kind: 'unmatched' };
      if (!outbound) return status.hard ? { kind: 'unmatched' } : { kind: 'soft_bounce', message_id: null, status: status.status };
      if (!status.hard) return { kind: 'soft_bounce', message_id: outbound.id, status: status.status };
      await this.hardBounce(outbound, `${status.status} ${status.diagnostic ?? ''}`.trim());
      return { kind: 'hard_bounce', message_id: outbound.id, status: status.status };
    }
    const outbound = await this.findOutbound(referencedIds(parsed.inReplyTo, parsed.references), null);
    if (isAutoReply(parsed.headers, subject)) return { kind: 'auto_reply', message_id: outbound?.id ?? null };
    if (!outbound) return { kind: 'unmatched' };
    const from = parsed.from?.value[0]?.address?.toLowerCase() ?? outbound.to_addr;
    const text = parsed.text ?? '';
    const inboundId = newId(ID_PREFIX.message);
    const messageId = parsed.messageId ?? options.fallbackMessageId ?? `<${inboundId}@inbound.invalid>`;
    const unsubscribes = asksToUnsubscribe({ text, subject, originalSubject: outbound.subject });
    const handled = await withTransaction(this.pool, async (tx) => {
      const inserted = await tx.query<MessageRow>(
        `INSERT INTO email_messages (id, workspace_id, lead_id, sequence_id, enrollment_id, mailbox_id, direction, from_addr, to_addr, subject, body,
           snippet, message_id, in_reply_to, status, sent_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'inbound', $7, $8, $9, $10, $11, $12, $13, 'received', coalesce($14, date_trunc('milliseconds', now())))
         ON CONFLICT (message_id) DO NOTHING RETURNING *`,
        [inboundId, outbound.workspace_id, outbound.lead_id, outbound.sequence_id, outbound.enrollment_id, outbound.mailbox_id, from, outbound.from_addr,
          subject, text, snippetOf(text), messageId, outbound.message_id, parsed.date ?? null],
      );
      if (!inserted.rows[0]) return { enrollmentId: null, suppressionId: null }; // the same reply delivered twice
      await recordEvent(tx, { type: EVENT.emailReplied, workspace_id: outbound.workspace_id, livemode: true, api_version: CURRENT_API_VERSION, object: renderMessage(inserted.rows[0]) });
      if (unsubscribes) {
        // the address we wrote to is suppressed in the workspace: this enrollment and any other of
        // that address stop `unsubscribed`, their queued emails are cancelled, unsubscribe.created
        const ctx = { workspace_id: outbound.workspace_id, livemode: true, api_version: CURRENT_API_VERSION } as RequestContext;
        const suppression = await this.suppressions.createIn(tx, ctx, { type: 'email', value: outbound.to_addr, reason: 'unsubscribe' }, 'unsubscribed');
        return { enrollmentId: null, suppressionId: suppression.id };
      }
      const stopped = await tx.query<{ id: string }>(
        `UPDATE enrollments SET status = 'stopped', stop_reason = 'replied', stopped_at = date_trunc('milliseconds', now()), next_send_at = NULL
         WHERE id = $1 AND status IN ('active', 'paused') RETURNING id`,
        [outbound.enrollment_id],
      );
      await tx.query(`UPDATE email_messages SET status = 'cancelled', lease_until = NULL WHERE enrollment_id = $1 AND status = 'queued'`, [outbound.enrollment_id]);
      return { enrollmentId: stopped.rows[0]?.id ?? null, suppressionId: null };
    });
    return unsubscribes
      ? { kind: 'unsubscribe_reply', message_id: outbound.id, suppression_id: handled.suppressionId }
      : { kind: 'reply', message_id: outbound.id, enrollment_id: handled.enrollmentId };
  }

  private async findOutbound(ids: string[], recipient: string | null): Promise<MessageRow | undefined> {
    if (ids.length > 0) {
      const { rows } = await this.pool.query<MessageRow>(`SELECT * FROM email_messages WHERE direction = 'outbound' AND message_id = ANY($1) ORDER BY created_at DESC LIMIT 1`, [ids]);
      if (rows[0]) return rows[0];
    }
    if (recipient) {
      const { rows } = await this.pool.query<MessageRow>(
        `SELECT * FROM email_messages WHERE direction = 'outbound' AND lower(to_addr) = $1 AND status = 'sent' ORDER BY created_at DESC LIMIT 1`,
        [recipient],
      );
      return rows[0];
    }
    return undefined;
  }

  /**
   * A 5.x.x DSN: the message is `bounced`, the address suppressed (`bounce`), the enrollment
   * stopped (`bounced`), `email.bounced` emitted (crm consumes it and makes the lead's email
   * `invalid`); the sequence pauses when bounces reach 5% of at least 20 sends.
   */
  async hardBounce(outbound: MessageRow, text: string): Promise<void> {
    const ctx = { workspace_id: outbound.workspace_id, livemode: true, api_version: CURRENT_API_VERSION } as RequestContext;
    await withTransaction(this.pool, async (tx: PoolClient) => {
      const { rows } = await tx.query<MessageRow>(
        `UPDATE email_messages SET status = 'bounced', error = $2, lease_until = NULL WHERE id = $1 AND status IN ('sent', 'queued', 'failed') RETURNING *`,
        [outbound.id, text.slice(0, 500)],
      );
      if (!rows[0]) return;
      await tx.query(
        `UPDATE enrollments SET status = 'stopped', stop_reason = 'bounced', stopped_at = date_trunc('milliseconds', now()), next_send_at = NULL,
           lead = jsonb_set(lead, '{email_status}', '"invalid"')
         WHERE id = $1 AND status IN ('active', 'paused')`,
        [outbound.enrollment_id],
      );
      await this.suppressions.createIn(tx, ctx, { type: 'email', value: outbound.to_addr, reason: 'bounce' }, 'suppressed');
      await recordEvent(tx, {
        type: EVENT.emailBounced, workspace_id: outbound.workspace_id, livemode: true, api_version: CURRENT_API_VERSION,
        object: { ...renderMessage(rows[0]), snippet: snippetOf(text) },
      });
      if (outbound.sequence_id) {
        const { rows: counts } = await tx.query<{ sent: number; bounced: number }>(
          `SELECT count(*) FILTER (WHERE status IN ('sent', 'bounced'))::int AS sent, count(*) FILTER (WHERE status = 'bounced')::int AS bounced
           FROM email_messages WHERE sequence_id = $1 AND direction = 'outbound'`,
          [outbound.sequence_id],
        );
        const { sent, bounced } = counts[0];
        if (sent >= BOUNCE_MIN_SENT && bounced >= sent * BOUNCE_PAUSE_RATE) {
          await tx.query(`UPDATE sequences SET status = 'paused', paused_reason = 'bounce_rate' WHERE id = $1 AND status = 'active'`, [outbound.sequence_id]);
        }
      }
    });
  }
}
