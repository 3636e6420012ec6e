import { Injectable } from '@nestjs/common';
import { CURRENT_API_VERSION, EVENT, ID_PREFIX, RequestContext } from '@app/contracts';
import { newId, recordEvent, UnitOfWork } from '@app/platform';
import { EnrollmentsRepository } from '../enrollments/enrollments.repository';
import { MessageRow, renderMessage, snippetOf } from '../engine/message.mapper';
import { SuppressionsService } from '../suppressions/suppressions.service';
import { isAutoReply, parseDeliveryStatus, referencedIds } from './classify';
import { InboundRepository } from './inbound.repository';
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
    private readonly inbound: InboundRepository,
    private readonly suppressions: SuppressionsService,
    private readonly enrollments: EnrollmentsRepository,
    private readonly uow: UnitOfWork,
  ) {}

  /**
   * `fallbackMessageId` names a reply that carries no Message-ID of its own (the IMAP poller
   * passes one derived from mailbox, UIDVALIDITY and UID), so handling it again records nothing.
   */
  async intake(raw: string | Buffer, options: { fallbackMessageId?: string } = {}): Promise<InboundOutcome> {
    // loaded at the first reply or bounce, not at start: 80 ms of every start's CPU (2026-11-29) for mail that may never come
    const { simpleParser } = await import('mailparser');
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
    const handled = await this.uow.run(async (tx) => {
      const reply = await this.inbound.insertReply(tx.client, {
        id: inboundId, outbound, from, subject, text, snippet: snippetOf(text), message_id: messageId, sent_at: parsed.date ?? null,
      });
      if (!reply) return { enrollmentId: null, suppressionId: null }; // the same reply delivered twice
      await recordEvent(tx.client, { type: EVENT.emailReplied, workspace_id: outbound.workspace_id, livemode: true, api_version: CURRENT_API_VERSION, object: renderMessage(reply) });
      if (unsubscribes) {
        // the address we wrote to is suppressed in the workspace: this enrollment and any other of
        // that address stop `unsubscribed`, their queued emails are cancelled, unsubscribe.created
        const ctx = { workspace_id: outbound.workspace_id, livemode: true, api_version: CURRENT_API_VERSION } as RequestContext;
        const suppression = await this.suppressions.createIn(tx, ctx, { type: 'email', value: outbound.to_addr, reason: 'unsubscribe' }, 'unsubscribed');
        return { enrollmentId: null, suppressionId: suppression.id };
      }
      const stopped = await this.inbound.stopReplied(tx.client, outbound.enrollment_id);
      await this.enrollments.cancelQueuedMessages(tx.client, [outbound.enrollment_id]);
      return { enrollmentId: stopped, suppressionId: null };
    });
    return unsubscribes
      ? { kind: 'unsubscribe_reply', message_id: outbound.id, suppression_id: handled.suppressionId }
      : { kind: 'reply', message_id: outbound.id, enrollment_id: handled.enrollmentId };
  }

  private async findOutbound(ids: string[], recipient: string | null): Promise<MessageRow | undefined> {
    if (ids.length > 0) {
      const found = await this.inbound.outboundByMessageIds(ids);
      if (found) return found;
    }
    return recipient ? this.inbound.lastSentTo(recipient) : undefined;
  }

  /**
   * A 5.x.x DSN: the message is `bounced`, the address suppressed (`bounce`), the enrollment
   * stopped (`bounced`), `email.bounced` emitted (crm consumes it and makes the lead's email
   * `invalid`); the sequence pauses when bounces reach 5% of at least 20 sends.
   */
  async hardBounce(outbound: MessageRow, text: string): Promise<void> {
    const ctx = { workspace_id: outbound.workspace_id, livemode: true, api_version: CURRENT_API_VERSION } as RequestContext;
    await this.uow.run(async (tx) => {
      const bounced = await this.inbound.markBounced(tx.client, outbound.id, text.slice(0, 500));
      if (!bounced) return;
      await this.inbound.stopBounced(tx.client, outbound.enrollment_id);
      await this.suppressions.createIn(tx, ctx, { type: 'email', value: outbound.to_addr, reason: 'bounce' }, 'suppressed');
      await recordEvent(tx.client, {
        type: EVENT.emailBounced, workspace_id: outbound.workspace_id, livemode: true, api_version: CURRENT_API_VERSION,
        object: { ...renderMessage(bounced), snippet: snippetOf(text) },
      });
      if (outbound.sequence_id) {
        const figures = await this.inbound.sendFigures(tx.client, outbound.sequence_id);
        if (figures.sent >= BOUNCE_MIN_SENT && figures.bounced >= figures.sent * BOUNCE_PAUSE_RATE) {
          await this.inbound.pauseForBounceRate(tx.client, outbound.sequence_id);
        }
      }
    });
  }
}
