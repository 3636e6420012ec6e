import { Enrollment, EmailMessage, LeadContact, Sequence, SequenceStats, SequenceStep, StopReason, Suppression } from '@app/contracts';
import { SequenceStepEntity } from './sequences/sequence-step.entity';
import { SequenceEntity } from './sequences/sequence.entity';
import { SuppressionEntity } from './suppressions/suppression.entity';

export type SequenceRow = SequenceEntity;
export type StepRow = SequenceStepEntity;
export type SuppressionRow = SuppressionEntity;

export interface EnrollmentRow {
  id: string;
  workspace_id: string;
  sequence_id: string;
  lead_id: string;
  email: string;
  lead: LeadContact;
  status: Enrollment['status'];
  current_step: number;
  next_send_at: Date | null;
  hold_reason: string | null;
  last_mailbox_id: string | null;
  enrolled_at: Date;
  stopped_at: Date | null;
  stop_reason: StopReason | null;
}

export interface MessageRow {
  id: string;
  workspace_id: string;
  lead_id: string;
  sequence_id: string | null;
  enrollment_id: string | null;
  step_position: number | null;
  mailbox_id: string;
  direction: 'outbound' | 'inbound';
  from_addr: string;
  to_addr: string;
  subject: string;
  body: string | null;
  snippet: string;
  message_id: string;
  status: string;
  attempts: number;
  /** Until when the replica that claimed the message may hand it over (queued messages only). */
  lease_until: Date | null;
  created_at: Date;
  sent_at: Date | null;
  /** The trace and request id of the enrollment, continued by the send (outbound only). */
  trace_context?: Record<string, string> | null;
}

export const ENROLLMENT_COLUMNS = `id, workspace_id, sequence_id, lead_id, email, lead, status, current_step, next_send_at, hold_reason,
  last_mailbox_id, enrolled_at, stopped_at, stop_reason`;

export function renderStep(row: StepRow): SequenceStep {
  return { position: row.position, type: row.type, subject: row.subject, wait_days: row.wait_days };
}

export function renderSequence(row: SequenceRow, steps: StepRow[], stats: SequenceStats): Sequence {
  return {
    id: row.id,
    object: 'sequence',
    name: row.name,
    lens: row.lens,
    status: row.status,
    mailbox_ids: row.mailbox_ids,
    business_days_only: row.business_days_only,
    steps: steps.map(renderStep),
    stats,
    created_at: row.created_at.toISOString(),
    launched_at: row.launched_at ? row.launched_at.toISOString() : null,
  };
}

export function renderEnrollment(row: EnrollmentRow): Enrollment {
  return {
    id: row.id,
    object: 'enrollment',
    sequence_id: row.sequence_id,
    lead_id: row.lead_id,
    status: row.status,
    current_step: row.current_step,
    next_send_at: row.next_send_at ? row.next_send_at.toISOString() : null,
    enrolled_at: row.enrolled_at.toISOString(),
    stopped_at: row.stopped_at ? row.stopped_at.toISOString() : null,
    stop_reason: row.stop_reason,
  };
}

export function renderSuppression(row: SuppressionRow): Suppression {
  return { id: row.id, object: 'suppression', type: row.type, value: row.value, reason: row.reason, scope: row.scope, created_at: row.created_at.toISOString() };
}

export function renderMessage(row: MessageRow): EmailMessage {
  return {
    id: row.id,
    lead_id: row.lead_id,
    sequence_id: row.sequence_id,
    mailbox_id: row.mailbox_id,
    direction: row.direction,
    from: row.from_addr,
    to: row.to_addr,
    subject: row.subject,
    snippet: row.snippet,
    sent_at: (row.sent_at ?? row.created_at).toISOString(),
  };
}

export function snippetOf(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}
