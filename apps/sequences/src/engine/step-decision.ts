import { MailboxRow } from '../mailboxes/mailboxes.repository';
import { EnrollmentRow } from '../enrollments/enrollment.mapper';
import { StepRow } from '../sequences/sequence.mapper';
import { publicHolidays } from './holidays';
import { leadValues, renderTemplate } from './merge-tags';
import { addWait, nextWindowStart, zonedParts } from './schedule';
import { unsubscribeToken } from './unsubscribe-token';

/** An enrollment the engine claimed, with what it needs of its sequence. */
export interface ClaimedEnrollment extends EnrollmentRow {
  mailbox_ids: string[];
  business_days_only: boolean;
}

/** What the engine knows about one claimed enrollment when it decides its step. */
export interface StepFacts {
  enrollment: ClaimedEnrollment;
  /** The steps of the enrollment's sequence. */
  steps: StepRow[];
  /** Whether a workspace or global suppression covers the enrollment's address. */
  suppressed: boolean;
  /** The claimed mailboxes (of every sequence in the batch), by id. */
  mailboxes: ReadonlyMap<string, MailboxRow>;
  /** Outbound emails of each mailbox since its local midnight, this batch's sends included. */
  sentToday: ReadonlyMap<string, number>;
  now: Date;
  /** Where the email's unsubscribe link points and the key that signs it. */
  links: { publicApiUrl: string; secretKey: string };
}

/** What becomes of a claimed enrollment in this tick. */
export type StepDecision =
  /** No step at the current position: the sequence is done for this lead. */
  | { kind: 'complete' }
  /** A wait step: the next step is due at `next_send_at`. */
  | { kind: 'wait'; next_send_at: Date }
  /** A suppression covers the address: the enrollment stops `suppressed`. */
  | { kind: 'suppressed' }
  /** The lead's email is known invalid: the enrollment stops `bounced`. */
  | { kind: 'bounced' }
  /** A merge tag has no value and no fallback: held (no next send) until the lead changes. */
  | { kind: 'hold'; reason: string }
  /** Every mailbox is outside its window or at its cap: due again at `next_send_at`. */
  | { kind: 'later'; next_send_at: Date }
  /** The email of `step`, rendered, goes out through `mailbox`. */
  | { kind: 'send'; step: StepRow; mailbox: MailboxRow; subject: string; body: string };

/** Start of `at`'s local day in `timeZone` (as an instant). */
export function localMidnight(at: Date, timeZone: string): Date {
  const { minutes } = zonedParts(at, timeZone);
  const seconds = at.getUTCSeconds();
  return new Date(Math.floor(at.getTime() / 1000) * 1000 - (minutes * 60 + seconds) * 1000);
}

/**
 * The step decision of one claimed enrollment, in the order the rules apply: a finished sequence
 * completes, a wait step waits, a suppressed or invalid address stops, a lead whose merge tags
 * cannot be rendered is held whatever the mailboxes' caps say, and only then is a mailbox picked.
 */
export function decideStep(facts: StepFacts): StepDecision {
  const { enrollment: e, now } = facts;
  const step = facts.steps.find((s) => s.position === e.current_step);
  if (!step) return { kind: 'complete' };
  if (step.type === 'wait') {
    const tz = facts.mailboxes.get(e.mailbox_ids[0])?.timezone ?? 'UTC';
    // business days skip weekends and the recipient country's public holidays
    const holidays = e.business_days_only ? publicHolidays(e.lead.country, now.getUTCFullYear()) : undefined;
    return { kind: 'wait', next_send_at: addWait(now, step.wait_days ?? 0, e.business_days_only, tz, holidays) };
  }
  if (facts.suppressed) return { kind: 'suppressed' };
  if (e.lead.email_status === 'invalid') return { kind: 'bounced' };
  const url = `${facts.links.publicApiUrl}/unsubscribe/${unsubscribeToken(e.id, facts.links.secretKey)}`;
  const values = leadValues(e.lead, url);
  const subject = renderTemplate(step.subject ?? '', values);
  const body = renderTemplate(step.body ?? '', values);
  if (!subject.ok || !body.ok) {
    const missing = [...new Set([...(subject.ok ? [] : subject.missing), ...(body.ok ? [] : body.missing)])];
    return { kind: 'hold', reason: `step ${step.position}: no value and no fallback for ${missing.join(', ')}` };
  }
  const pick = pickMailbox(e, facts.mailboxes, facts.sentToday, now);
  if ('later' in pick) return { kind: 'later', next_send_at: pick.later };
  return { kind: 'send', step, mailbox: pick.mailbox, subject: subject.text, body: body.text };
}

/** The next mailbox of the sequence after the last one used that is inside its window and under its cap. */
function pickMailbox(
  e: ClaimedEnrollment, mailboxes: ReadonlyMap<string, MailboxRow>, sentToday: ReadonlyMap<string, number>, now: Date,
): { mailbox: MailboxRow } | { later: Date } {
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
