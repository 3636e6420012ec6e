import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CURRENT_API_VERSION, EVENT, ID_PREFIX } from '@app/contracts';
import { continueFrom, counter, newId, SpanKind, recordEvent, rootLogger, Tx, UnitOfWork } from '@app/platform';
import { InboundService } from '../inbound/inbound.service';
import { MailboxesRepository, MailboxRow, SMTP_CONNECTIONS_PER_MAILBOX } from '../mailboxes/mailboxes.repository';
import { MessageRow, renderMessage, snippetOf } from './message.mapper';
import { renderEnrollment } from '../enrollments/enrollment.mapper';
import { SEQUENCES_CONFIG, SequencesConfig } from '../sequences.config';
import { SequencesRepository } from '../sequences/sequences.repository';
import { SuppressionsService } from '../suppressions/suppressions.service';
import { EngineClock } from './clock';
import { ClaimedRow, EngineRepository } from './engine.repository';
import { decideStep, localMidnight, StepDecision } from './step-decision';
import { unsubscribeToken } from './unsubscribe-token';

/** Sending engine throughput: emails handed to SMTP by outcome (attempted, sent, deferred, refused). */
const handOffs = counter('sequences_smtp_handoffs_total', 'Emails handed to a mailbox SMTP server, by outcome', ['outcome']);

const log = rootLogger('sequences');

/**
 * The sending engine. Each tick claims due enrollments with FOR UPDATE SKIP LOCKED (replicas
 * never claim the same row), decides their step (`decideStep`, a pure function of what was
 * claimed) and applies the decision; for an email step it records the message (`queued`, unique
 * per enrollment step, unique Message-ID) in the claiming transaction. Only after that commit is
 * the message handed to SMTP; then it is marked `sent` with `email.sent`. A process killed in
 * between leaves a `queued` message whose lease expires: it is handed over again with the same
 * Message-ID, never recorded twice.
 */
@Injectable()
export class Sender implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly clock: EngineClock;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly engine: EngineRepository,
    @Inject(SEQUENCES_CONFIG) private readonly config: SequencesConfig,
    private readonly sequences: SequencesRepository,
    private readonly mailboxes: MailboxesRepository,
    private readonly suppressions: SuppressionsService,
    private readonly inbound: InboundService,
    private readonly uow: UnitOfWork,
  ) {
    this.clock = new EngineClock(engine, config.testClock);
  }

  onApplicationBootstrap(): void {
    this.engine.observeBacklog();
    if (!this.config.engineEnabled) return;
    const loop = async () => {
      if (this.stopped) return;
      let busy = false;
      this.running = this.tick().then((n) => { busy = n >= this.config.batch; }, (err) => log.warn({ err: (err as Error).message }, 'sequences engine: tick failed'));
      await this.running;
      if (!this.stopped) this.timer = setTimeout(loop, busy ? 0 : this.config.tickMs);
    };
    this.timer = setTimeout(loop, 50);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: claims, records and hands over; returns how many enrollments it claimed. */
  async tick(): Promise<number> {
    await this.clock.refresh();
    const now = this.clock.now();
    const { claimed, messages } = await this.uow.run((tx) => this.claim(tx, now));
    // a stale lease is judged by the wall clock, whatever the test clock says
    const retries = await this.engine.claimStale(new Date(), new Date(Date.now() + this.config.sendLeaseMs), this.config.batch);
    await this.handOver([...messages, ...retries]);
    return claimed;
  }

  /** Claim (with what the decisions need, read in the same transaction), decide, apply. */
  private async claim(tx: Tx, now: Date): Promise<{ claimed: number; messages: MessageRow[] }> {
    const rows = await this.engine.claimDue(tx, now, this.config.batch);
    if (rows.length === 0) return { claimed: 0, messages: [] };
    const steps = await this.sequences.stepsOf([...new Set(rows.map((r) => r.sequence_id))], tx);
    // mailboxes locked in id order: replicas sending through one mailbox take turns, so caps hold
    const mailboxIds = [...new Set(rows.flatMap((r) => r.mailbox_ids))].sort();
    const mailboxes = new Map((await this.mailboxes.findByIds(mailboxIds, tx, true)).map((m) => [m.id, m]));
    const sentToday = new Map<string, number>();
    for (const m of mailboxes.values()) sentToday.set(m.id, await this.engine.outboundSince(tx, m.id, localMidnight(now, m.timezone)));
    const suppressedByWorkspace = new Map<string, Set<string>>();
    for (const ws of new Set(rows.map((r) => r.workspace_id))) {
      suppressedByWorkspace.set(ws, await this.suppressions.suppressedAmong(ws, rows.filter((r) => r.workspace_id === ws).map((r) => r.email), tx));
    }
    const links = { publicApiUrl: this.config.publicApiUrl, secretKey: this.config.secretKey };
    const messages: MessageRow[] = [];
    for (const e of rows) {
      const decision = decideStep({
        enrollment: e, steps: steps.get(e.sequence_id) ?? [], suppressed: suppressedByWorkspace.get(e.workspace_id)?.has(e.email.toLowerCase()) ?? false,
        mailboxes, sentToday, now, links,
      });
      const message = await this.apply(tx, e, decision, now);
      if (decision.kind === 'send') sentToday.set(decision.mailbox.id, (sentToday.get(decision.mailbox.id) ?? 0) + 1);
      if (message) messages.push(message);
    }
    return { claimed: rows.length, messages };
  }

  /** The statements of one decision, in the claiming transaction; the queued email of a `send`. */
  private async apply(tx: Tx, e: ClaimedRow, decision: StepDecision, now: Date): Promise<MessageRow | undefined> {
    switch (decision.kind) {
      case 'complete': {
        const done = await this.engine.complete(tx, e.id);
        await recordEvent(tx, { type: EVENT.sequenceCompleted, workspace_id: e.workspace_id, livemode: true, api_version: CURRENT_API_VERSION, object: renderEnrollment(done) });
        return undefined;
      }
      case 'wait':
        await this.engine.passWait(tx, e.id, decision.next_send_at);
        return undefined;
      case 'suppressed':
      case 'bounced':
        await this.engine.stop(tx, e.id, decision.kind);
        return undefined;
      case 'hold':
        await this.engine.hold(tx, e.id, decision.reason);
        return undefined;
      case 'later':
        await this.engine.postpone(tx, e.id, decision.next_send_at);
        return undefined;
      case 'send': {
        const { mailbox } = decision;
        const id = newId(ID_PREFIX.message, now.getTime());
        const domain = mailbox.email.slice(mailbox.email.lastIndexOf('@') + 1);
        const queued = await this.engine.queue(tx, {
          id, enrollment: e, step_position: decision.step.position, mailbox, subject: decision.subject, body: decision.body,
          snippet: snippetOf(decision.body), message_id: `<${id}@${domain}>`, lease_until: new Date(Date.now() + this.config.sendLeaseMs),
        });
        await this.engine.passEmail(tx, e.id, now, mailbox.id);
        return queued;
      }
    }
  }

  /**
   * Hands messages to SMTP. Each waits for a free connection of its mailbox's pool (no hidden queue
   * inside nodemailer, so at most one message per connection is in flight); one that waited past
   * half its lease renews it fenced by `attempts` first, so a message another replica took over
   * meanwhile is not sent twice. What stays ambiguous is only a crash between the server's 250 and our commit.
   */
  private async handOver(messages: MessageRow[]): Promise<void> {
    if (messages.length === 0) return;
    const mailboxes = new Map((await this.mailboxes.findByIds([...new Set(messages.map((m) => m.mailbox_id))])).map((m) => [m.id, m]));
    const slots = new Map<string, Slots>();
    let next = 0;
    const worker = async () => {
      while (next < messages.length) {
        const message = messages[next++];
        const mailbox = mailboxes.get(message.mailbox_id);
        if (!mailbox) continue;
        let slot = slots.get(mailbox.id);
        if (!slot) slots.set(mailbox.id, (slot = new Slots(SMTP_CONNECTIONS_PER_MAILBOX)));
        await slot.acquire();
        try {
          // a message whose lease has more than half its length left cannot have been taken over
          // (only expired leases are) and is sent at once; one that waited longer renews it first,
          // fenced by `attempts`, and is dropped when another replica took it meanwhile
          const left = new Date(message.lease_until ?? 0).getTime() - Date.now();
          if (left < this.config.sendLeaseMs / 2) {
            if (!(await this.engine.renewLease(message.id, message.attempts, new Date(Date.now() + this.config.sendLeaseMs)))) {
              handOffs.inc({ outcome: 'taken_over' });
              continue;
            }
          }
          // the send (its log lines, its email.sent event and that event's webhooks) continues the enrollment's trace
          await continueFrom(message.trace_context, 'email send', SpanKind.CLIENT, { 'email.message.id': message.id }, () => this.sendOne(message, mailbox));
        } finally {
          slot.release();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.config.sendConcurrency, messages.length) }, worker));
  }

  private async sendOne(message: MessageRow, mailbox: MailboxRow): Promise<void> {
    handOffs.inc({ outcome: 'attempted' });
    const url = `${this.config.publicApiUrl}/unsubscribe/${unsubscribeToken(message.enrollment_id ?? '', this.config.secretKey)}`;
    try {
      await this.mailboxes.transportFor(mailbox).sendMail({
        from: message.from_addr,
        to: message.to_addr,
        subject: message.subject,
        text: message.body ?? '',
        messageId: message.message_id,
        headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', 'X-Sequence-Message': message.id },
      });
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      const permanent = typeof code === 'number' && code >= 500;
      await this.engine.recordHandOffFailure(message.id, message.attempts, permanent, String((err as Error).message).slice(0, 500));
      handOffs.inc({ outcome: permanent ? 'refused' : 'deferred' });
      log.warn({ message_id: message.id, err }, 'sequences engine: SMTP hand-off failed');
      // the mailbox's server refused the recipient itself (550 5.1.1 and the like): a hard bounce at once
      const rejected = (err as { rejected?: unknown[]; command?: string }).command === 'RCPT TO' || ((err as { rejected?: unknown[] }).rejected?.length ?? 0) > 0;
      if (permanent && rejected) {
        const current = await this.engine.findMessage(message.id);
        if (current) await this.inbound.hardBounce(current, `${code} ${String((err as { response?: string }).response ?? (err as Error).message)}`);
      }
      return;
    }
    await this.uow.run(async (tx) => {
      const sent = await this.engine.markSent(tx, message.id);
      if (sent) {
        handOffs.inc({ outcome: 'sent' });
        log.info({ message_id: message.id, enrollment_id: message.enrollment_id, mailbox_id: message.mailbox_id }, 'email sent');
        await recordEvent(tx, { type: EVENT.emailSent, workspace_id: sent.workspace_id, livemode: true, api_version: CURRENT_API_VERSION, object: renderMessage(sent) });
      }
    });
  }
}

/** A counting semaphore: at most `size` holders at once, waiters served in order. */
class Slots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly size: number) {}
  async acquire(): Promise<void> {
    if (this.used < this.size) {
      this.used++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const wake = this.waiting.shift();
    if (wake) wake();
    else this.used--;
  }
}
