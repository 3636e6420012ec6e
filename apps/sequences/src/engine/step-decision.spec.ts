import { LeadContact } from '@app/contracts';
import { MailboxRow } from '../mailboxes/mailboxes.repository';
import { StepRow } from '../sequences/sequence.mapper';
import { ClaimedEnrollment, decideStep, localMidnight, StepDecision, StepFacts } from './step-decision';
import { unsubscribeToken } from './unsubscribe-token';

const NOW = new Date('2026-11-20T10:00:00Z'); // a Friday
const LINKS = { publicApiUrl: 'https://api.example.test/api/v1', secretKey: 'test-secret' };

const lead: LeadContact = {
  id: 'lead_1', email: 'ada@example.com', email_status: 'valid', first_name: 'Ada', last_name: null, full_name: 'Ada',
  title: null, company_name: 'Acme', country: 'DE', lawful_basis: 'legitimate_interest', updated_at: '2026-11-01T00:00:00.000Z',
} as LeadContact;

function mailbox(id: string, over: Partial<MailboxRow> = {}): MailboxRow {
  return {
    id, workspace_id: 'ws_1', email: `${id}@sender.test`, smtp_host: 'smtp.test', smtp_port: 25, smtp_secure: false, smtp_auth_enc: null,
    imap_url_enc: null, imap_host: null, daily_cap: 100, timezone: 'UTC', window_start: '00:00', window_end: '00:00', verified: true,
    created_at: new Date('2026-01-01T00:00:00Z'), ...over,
  };
}

const emailStep: StepRow = { sequence_id: 'seq_1', position: 1, type: 'email', subject: 'Hi {{first_name}}', body: 'At {{company_name}}: {{unsubscribe_url}}', wait_days: null };
const waitStep: StepRow = { sequence_id: 'seq_1', position: 1, type: 'wait', subject: null, body: null, wait_days: 1 };

function facts(over: { enrollment?: Partial<ClaimedEnrollment>; steps?: StepRow[]; mailboxes?: MailboxRow[]; sentToday?: [string, number][] } & Partial<Pick<StepFacts, 'suppressed' | 'now'>> = {}): StepFacts {
  const mailboxes = over.mailboxes ?? [mailbox('mbx_a'), mailbox('mbx_b')];
  return {
    enrollment: {
      id: 'enr_1', workspace_id: 'ws_1', sequence_id: 'seq_1', lead_id: 'lead_1', email: 'ada@example.com', lead, status: 'active',
      current_step: 1, next_send_at: NOW, hold_reason: null, last_mailbox_id: null, enrolled_at: NOW, stopped_at: null, stop_reason: null,
      mailbox_ids: mailboxes.map((m) => m.id), business_days_only: false, ...over.enrollment,
    },
    steps: over.steps ?? [emailStep],
    suppressed: over.suppressed ?? false,
    mailboxes: new Map(mailboxes.map((m) => [m.id, m])),
    sentToday: new Map(over.sentToday ?? []),
    now: over.now ?? NOW,
    links: LINKS,
  };
}

/** A decision with its mailbox reduced to the id, so a table can name it. */
function summary(decision: StepDecision): unknown {
  return decision.kind === 'send' ? { ...decision, mailbox: decision.mailbox.id, step: decision.step.position } : decision;
}

describe('the step decision', () => {
  const unsubscribeUrl = `${LINKS.publicApiUrl}/unsubscribe/${unsubscribeToken('enr_1', LINKS.secretKey)}`;
  const sent = (mailboxId: string) => ({ kind: 'send', step: 1, mailbox: mailboxId, subject: 'Hi Ada', body: `At Acme: ${unsubscribeUrl}` });

  it.each<[string, StepFacts, unknown]>([
    ['no step at the current position: complete', facts({ enrollment: { current_step: 2 } }), { kind: 'complete' }],
    ['a sequence without steps: complete', facts({ steps: [] }), { kind: 'complete' }],
    ['a wait step of calendar days: wait', facts({ steps: [waitStep] }), { kind: 'wait', next_send_at: new Date('2026-11-21T10:00:00Z') }],
    ['a wait step of business days skips the weekend: wait', facts({ steps: [waitStep], enrollment: { business_days_only: true } }),
      { kind: 'wait', next_send_at: new Date('2026-11-23T10:00:00Z') }],
    ['a wait step of business days skips the country\'s holidays: wait',
      facts({ steps: [{ ...waitStep, wait_days: 1 }], enrollment: { business_days_only: true }, now: new Date('2026-12-24T10:00:00Z') }),
      { kind: 'wait', next_send_at: new Date('2026-12-28T10:00:00Z') }],
    ['a wait step of 0 days (none given): wait until now', facts({ steps: [{ ...waitStep, wait_days: null }] }), { kind: 'wait', next_send_at: NOW }],
    ['a wait step is waited even when the address is suppressed', facts({ steps: [waitStep], suppressed: true }),
      { kind: 'wait', next_send_at: new Date('2026-11-21T10:00:00Z') }],
    ['a suppressed address: suppressed', facts({ suppressed: true }), { kind: 'suppressed' }],
    ['suppressed before bounced', facts({ suppressed: true, enrollment: { lead: { ...lead, email_status: 'invalid' } } }), { kind: 'suppressed' }],
    ['an invalid email: bounced', facts({ enrollment: { lead: { ...lead, email_status: 'invalid' } } }), { kind: 'bounced' }],
    ['a merge tag without value or fallback: hold, naming it once',
      facts({ steps: [{ ...emailStep, subject: 'Hi {{last_name}}', body: '{{title}} {{last_name}} {{unsubscribe_url}}' }] }),
      { kind: 'hold', reason: 'step 1: no value and no fallback for last_name, title' }],
    ['hold whatever the mailboxes\' caps say',
      facts({ steps: [{ ...emailStep, subject: 'Hi {{last_name}}' }], sentToday: [['mbx_a', 100], ['mbx_b', 100]] }),
      { kind: 'hold', reason: 'step 1: no value and no fallback for last_name' }],
    ['every mailbox outside its window: later, at the earliest opening',
      facts({ mailboxes: [mailbox('mbx_a', { window_start: '14:00', window_end: '16:00' }), mailbox('mbx_b', { window_start: '12:00', window_end: '13:00' })] }),
      { kind: 'later', next_send_at: new Date('2026-11-20T12:00:00Z') }],
    ['every mailbox at its cap: later, at the next local day\'s window',
      facts({ mailboxes: [mailbox('mbx_a', { daily_cap: 2 }), mailbox('mbx_b', { daily_cap: 1, window_start: '09:00', window_end: '17:00' })], sentToday: [['mbx_a', 2], ['mbx_b', 1]] }),
      { kind: 'later', next_send_at: new Date('2026-11-21T00:01:00Z') }],
    ['no mailbox of the sequence claimed: later, in an hour', facts({ mailboxes: [], enrollment: { mailbox_ids: ['mbx_gone'] } }),
      { kind: 'later', next_send_at: new Date('2026-11-20T11:00:00Z') }],
    ['the first mailbox when none was used: send', facts(), sent('mbx_a')],
    ['the mailbox after the last one used: send', facts({ enrollment: { last_mailbox_id: 'mbx_a' } }), sent('mbx_b')],
    ['round robin wraps around: send', facts({ enrollment: { last_mailbox_id: 'mbx_b' } }), sent('mbx_a')],
    ['a capped mailbox is passed over: send', facts({ sentToday: [['mbx_a', 100]] }), sent('mbx_b')],
    ['a mailbox outside its window is passed over: send', facts({ mailboxes: [mailbox('mbx_a', { window_start: '14:00', window_end: '16:00' }), mailbox('mbx_b')] }), sent('mbx_b')],
    ['fallbacks render: send',
      facts({ steps: [{ ...emailStep, subject: 'Hi {{last_name|there}}', body: '{{title|}}{{unsubscribe_url}}' }] }),
      { kind: 'send', step: 1, mailbox: 'mbx_a', subject: 'Hi there', body: unsubscribeUrl }],
  ])('%s', (_name, input, expected) => {
    expect(summary(decideStep(input))).toEqual(expected);
  });

  it('the wait step of a sequence takes its first mailbox\'s time zone for business days', () => {
    // Friday 23:30 UTC is Saturday 08:30 in Tokyo: one business day later is Monday there
    const input = facts({
      steps: [waitStep], enrollment: { business_days_only: true }, now: new Date('2026-11-20T23:30:00Z'),
      mailboxes: [mailbox('mbx_a', { timezone: 'Asia/Tokyo' })],
    });
    expect(decideStep(input)).toEqual({ kind: 'wait', next_send_at: new Date('2026-11-22T23:30:00Z') });
  });

  it('local midnight is the start of the day in the mailbox\'s zone', () => {
    expect(localMidnight(new Date('2026-11-20T10:15:30.250Z'), 'UTC').toISOString()).toBe('2026-11-20T00:00:00.000Z');
    expect(localMidnight(new Date('2026-11-20T10:15:30Z'), 'America/New_York').toISOString()).toBe('2026-11-20T05:00:00.000Z');
  });
});
