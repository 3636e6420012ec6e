import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import { CURRENT_API_VERSION, EVENT, ID_PREFIX } from '@app/contracts';
import { backlogGauge, continueFrom, counter, newId, PG_POOL, SpanKind, TraceCarrier, recordEvent, rootLogger, withTransaction } from '@app/platform';
import { InboundService } from '../inbound/inbound.service';
import { MailboxesRepository, MailboxRow, SMTP_CONNECTIONS_PER_MAILBOX } from '../mailboxes/mailboxes.repository';
import { EnrollmentRow, MessageRow, renderEnrollment, renderMessage, snippetOf, StepRow } from '../rows';
import { SEQUENCES_CONFIG, SequencesConfig } from '../sequences.config';
import { SuppressionsService } from '../suppressions/suppressions.service';
import { EngineClock } from './clock';
import { leadValues, renderTemplate } from './merge-tags';
import { publicHolidays } from './holidays';
import { addWait, nextWindowStart, zonedParts } from './schedule';
import { unsubscribeToken } from './unsubscribe-token';

/** Sending engine throughput: emails handed to SMTP by outcome (attempted, sent, deferred, refused). */
const handOffs = counter('sequences_smtp_handoffs_total', 'Emails handed to a mailbox SMTP server, by outcome', ['outcome']);

interface Claimed extends EnrollmentRow {
  trace_context: TraceCarrier | null;
  mailbox_ids: string[];
  business_days_only: boolean;
}

const log = rootLogger('sequences');

/** Start of `at`'s local day in `timeZone` (as an instant). */
function localMidnight(at: Date, timeZone: string): Date {
  const { minutes } = zonedParts(at, timeZone);
  const seconds = at.getUTCSeconds();
  return new Date(Math.floor(at.getTime() / 1000) * 1000 - (minutes * 60 + seconds) * 1000);
}

/**
 * The sending engine. Each tick claims due enrollments with FOR UPDATE SKIP LOCKED (replicas
 * never claim the same row), decides their step and, for an email step, records the message
 * (`queued`, unique per enrollment step, unique Message-ID) in the claiming transaction. Only
 * after that commit is the message handed to SMTP; then it is marked `sent` with `email.sent`.
 * A process killed in between leaves a `queued` message whose lease expires: it is handed over
 * again with the same Message-ID, never recorded twice.
 */
@Injectable()
export class Sender implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly clock: EngineClock;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SEQUENCES_CONFIG) private readonly config: SequencesConfig,
    private readonly mailboxes: MailboxesRepository,
    private readonly suppressions: SuppressionsService,
    private readonly inbound: InboundService,
  ) {
    this.clock = new EngineClock(pool, config.testClock);
  }

  onApplicationBootstrap(): void {
    backlogGauge('sequences_enrollments_due', 'Active enrollments whose next email is due now (the engine has not sent it yet)', this.pool,
      `SELECT count(*) AS n FROM enrollments WHERE status = 'active' AND next_send_at <= now()`);
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
    const { claimed, messages } = await withTransaction(this.pool, (tx) => this.claim(tx, now));
    const retries = await this.claimStale(now);
    await this.handOver([...messages, ...retries]);
    return claimed;
  }

  private async claim(tx: PoolClient, now: Date): Promise<{ claimed: number; messages: MessageRow[] }> {
    const { rows } = await tx.query<Claimed>(
      `SELECT e.id, e.workspace_id, e.sequence_id, e.lead_id, e.email, e.lead, e.status, e.current_step, e.next_send_at, e.hold_reason,
              e.last_mailbox_id, e.enrolled_at, e.stopped_at, e.stop_reason, e.trace_context, s.mailbox_ids, s.business_days_only
       FROM enrollments e JOIN sequences s ON s.id = e.sequence_id
       WHERE e.status = 'active' AND e.next_send_at <= $1 AND s.status = 'active'
       ORDER BY e.next_send_at LIMIT $2
       FOR UPDATE OF e SKIP LOCKED`,
      [now, this.config.batch],
    );
    if (rows.length === 0) return { claimed: 0, messages: [] };
    const sequenceIds = [...new Set(rows.map((r) => r.sequence_id))];
    const stepRows = await tx.query<StepRow>(
      'SELECT sequence_id, position, type, subject, body, wait_days FROM sequence_steps WHERE sequence_id = ANY($1) ORDER BY position',
      [sequenceIds],
    );
    const steps = new Map<string, StepRow[]>();
    for (const s of stepRows.rows) steps.set(s.sequence_id, [...(steps.get(s.sequence_id) ?? []), s]);
    // mailboxes locked in id order: replicas sending through one mailbox take turns, so caps hold
    const mailboxIds = [...new Set(rows.flatMap((r) => r.mailbox_ids))].sort();
    const mailboxes = new Map((await this.mailboxes.findByIds(tx, mailboxIds, true)).map((m) => [m.id, m]));
    const sentToday = new Map<string, number>();
    for (const m of mailboxes.values()) {
      const { rows: c } = await tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM email_messages WHERE mailbox_id = $1 AND direction = 'outbound' AND created_at >= $2 AND status <> 'cancelled'`,
        [m.id, localMidnight(now, m.timezone)],
      );
      sentToday.set(m.id, c[0].n);
    }
    const suppressedByWorkspace = new Map<string, Set<string>>();
    for (const ws of new Set(rows.map((r) => r.workspace_id))) {
      suppressedByWorkspace.set(ws, await this.suppressions.suppressedAmong(tx, ws, rows.filter((r) => r.workspace_id === ws).map((r) => r.email)));
    }
    const messages: MessageRow[] = [];
    for (const e of rows) {
      const list = steps.get(e.sequence_id) ?? [];
      const step = list.find((s) => s.position === e.current_step);
      if (!step) {
        const done = await tx.query<EnrollmentRow>(
          `UPDATE enrollments SET status = 'completed', next_send_at = NULL WHERE id = $1 RETURNING *`,
          [e.id],
        );
        await recordEvent(tx, { type: EVENT.sequenceCompleted, workspace_id: e.workspace_id, livemode: true, api_version: CURRENT_API_VERSION, object: renderEnrollment(done.rows[0]) });
        continue;
      }
      if (step.type === 'wait') {
        const tz = mailboxes.get(e.mailbox_ids[0])?.timezone ?? 'UTC';
        // business days skip weekends and the recipient country's public holidays
        const holidays = e.business_days_only ? publicHolidays(e.lead.country, now.getUTCFullYear()) : undefined;
        const next = addWait(now, step.wait_days ?? 0, e.business_days_only, tz, holidays);
        await tx.query('UPDATE enrollments SET current_step = current_step + 1, next_send_at = $2 WHERE id = $1', [e.id, next]);
        continue;
      }
      if (suppressedByWorkspace.get(e.workspace_id)?.has(e.email.toLowerCase())) {
        await tx.query(`UPDATE enrollments SET status = 'stopped', stop_reason = 'suppressed', stopped_at = date_trunc('milliseconds', now()), next_send_at = NULL WHERE id = $1`, [e.id]);
        continue;
      }
      if (e.lead.email_status === 'invalid') {
        await tx.query(`UPDATE enrollments SET status = 'stopped', stop_reason = 'bounced', stopped_at = date_trunc('milliseconds', now()), next_send_at = NULL WHERE id = $1`, [e.id]);
        continue;
      }
      // merge tags first: a lead that cannot be rendered is held whatever the mailboxes' caps say
      const url = `${this.config.publicApiUrl}/unsubscribe/${unsubscribeToken(e.id, this.config.secretKey)}`;
      const values = leadValues(e.lead, url);
      const subject = renderTemplate(step.subject ?? '', values);
      const body = renderTemplate(step.body ?? '', values);
      if (!subject.ok || !body.ok) {
        const missing = [...new Set([...(subject.ok ? [] : subject.missing), ...(body.ok ? [] : body.missing)])];
        await tx.query('UPDATE enrollments SET next_send_at = NULL, hold_reason = $2 WHERE id = $1', [
          e.id, `step ${step.position}: no value and no fallback for ${missing.join(', ')}`,
        ]);
        continue;
      }
      const pick = this.pickMailbox(e, mailboxes, sentToday, now);
      if ('later' in pick) {
        await tx.query('UPDATE enrollments SET next_send_at = $2 WHERE id = $1', [e.id, pick.later]);
        continue;
      }
      const mailbox = pick.mailbox;
      const id = newId(ID_PREFIX.message, now.getTime());
      const domain = mailbox.email.slice(mailbox.email.lastIndexOf('@') + 1);
      const inserted = await tx.query<MessageRow>(
        `INSERT INTO email_messages (id, workspace_id, lead_id, sequence_id, enrollment_id, step_position, mailbox_id, direction, from_addr, to_addr,
           subject, body, snippet, message_id, status, lease_until, trace_context)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'outbound', $8, $9, $10, $11, $12, $13, 'queued', $14, $15)
         ON CONFLICT DO NOTHING RETURNING *`,
        [id, e.workspace_id, e.lead_id, e.sequence_id, e.id, step.position, mailbox.id, mailbox.email, e.email, subject.text, body.text,
          snippetOf(body.text), `<${id}@${domain}>`, new Date(Date.now() + this.config.sendLeaseMs), e.trace_context && JSON.stringify(e.trace_context)],
      );
      sentToday.set(mailbox.id, (sentToday.get(mailbox.id) ?? 0) + 1);
      await tx.query('UPDATE enrollments SET current_step = current_step + 1, next_send_at = $2, last_mailbox_id = $3, hold_reason = NULL WHERE id = $1', [
        e.id, now, mailbox.id,
      ]);
      if (inserted.rows[0]) messages.push(inserted.rows[0]);
    }
    return { claimed: rows.length, messages };
  }

  /** The next mailbox of the sequence after the last one used that is inside its window and under its cap. */
  private pickMailbox(e: Claimed, mailboxes: Map<string, MailboxRow>, sentToday: Map<string, number>, now: Date): { mailbox: MailboxRow } | { later: Date } {
    const ids = e.mailbox_ids.filter((id) => mailboxes.has(id));
    const start = e.last_mailbox_id ? (ids.indexOf(e.last_mailbox_id) + 1) % Math.max(ids.length, 1) : 0;
    let earliest: Date | null = null;
    for (let i = 0; i < ids.length; i++) {
      const mailbox = mailboxes.get(ids[(start + i) % ids.length]) as MailboxRow;
      const opens = nextWindowStart(now, mailbox.timezone, mailbox.window_start, mailbox.window_end);
      const capped = (sentToday.get(mailbox.id) ?? 0) >= mailbox.daily_cap;
      if (!capped && opens.getTime() <= now.getTime()) return { mailbox };
      const candidate = capped
        ? nextWindowStart(new Date(localMidnight(now, mailbox.timezone).getTime() + 24 * 3600_000 + 60_000), mailbox.timezone, mailbox.window_start, mailbox.window_end)
        : opens;
      if (!earliest || candidate < earliest) earliest = candidate;
    }
    return { later: earliest ?? new Date(now.getTime() + 3600_000) };
  }

  /** Queued messages whose lease ran out (their sender died): handed over again, same Message-ID. */
  private async claimStale(now: Date): Promise<MessageRow[]> {
    const { rows } = await this.pool.query<MessageRow>(
      `UPDATE email_messages SET lease_until = $2, attempts = attempts + 1
       WHERE id IN (SELECT id FROM email_messages WHERE status = 'queued' AND lease_until < $1 ORDER BY lease_until LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [new Date(), new Date(Date.now() + this.config.sendLeaseMs), this.config.batch],
    );
    void now;
    return rows;
  }

  /**
   * Hands messages to SMTP. Each waits for a free connection of its mailbox's pool (no hidden queue
   * inside nodemailer, so at most one message per connection is in flight); one that waited past
   * half its lease renews it fenced by `attempts` first, so a message another replica took over
   * meanwhile is not sent twice. What stays ambiguous is only a crash between the server's 250 and our commit.
   */
  private async handOver(messages: MessageRow[]): Promise<void> {
    if (messages.length === 0) return;
    const mailboxes = new Map((await this.mailboxes.findByIds(this.pool, [...new Set(messages.map((m) => m.mailbox_id))])).map((m) => [m.id, m]));
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
            const { rowCount } = await this.pool.query(
              `UPDATE email_messages SET lease_until = $3 WHERE id = $1 AND status = 'queued' AND attempts = $2`,
              [message.id, message.attempts, new Date(Date.now() + this.config.sendLeaseMs)],
            );
            if (rowCount !== 1) {
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
      await this.pool.query(
        `UPDATE email_messages SET status = CASE WHEN $2 OR attempts >= 5 THEN 'failed' ELSE status END, error = $3,
           lease_until = now() + make_interval(secs => 30 * (attempts + 1))
         WHERE id = $1 AND status = 'queued' AND attempts = $4`,
        [message.id, permanent, String((err as Error).message).slice(0, 500), message.attempts],
      );
      handOffs.inc({ outcome: permanent ? 'refused' : 'deferred' });
      log.warn({ message_id: message.id, err }, 'sequences engine: SMTP hand-off failed');
      // the mailbox's server refused the recipient itself (550 5.1.1 and the like): a hard bounce at once
      const rejected = (err as { rejected?: unknown[]; command?: string }).command === 'RCPT TO' || ((err as { rejected?: unknown[] }).rejected?.length ?? 0) > 0;
      if (permanent && rejected) {
        const { rows } = await this.pool.query<MessageRow>(`SELECT * FROM email_messages WHERE id = $1`, [message.id]);
        if (rows[0]) await this.inbound.hardBounce(rows[0], `${code} ${String((err as { response?: string }).response ?? (err as Error).message)}`);
      }
      return;
    }
    await withTransaction(this.pool, async (tx) => {
      const { rows } = await tx.query<MessageRow>(
        `UPDATE email_messages SET status = 'sent', sent_at = date_trunc('milliseconds', now()), lease_until = NULL, error = NULL
         WHERE id = $1 AND status = 'queued' RETURNING *`,
        [message.id],
      );
      if (rows[0]) {
        handOffs.inc({ outcome: 'sent' });
        log.info({ message_id: message.id, enrollment_id: message.enrollment_id, mailbox_id: message.mailbox_id }, 'email sent');
        await recordEvent(tx, { type: EVENT.emailSent, workspace_id: rows[0].workspace_id, livemode: true, api_version: CURRENT_API_VERSION, object: renderMessage(rows[0]) });
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
