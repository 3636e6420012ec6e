import { Enrollment, LeadContact, StopReason } from '@app/contracts';

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

export const ENROLLMENT_COLUMNS = `id, workspace_id, sequence_id, lead_id, email, lead, status, current_step, next_send_at, hold_reason,
  last_mailbox_id, enrolled_at, stopped_at, stop_reason`;

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
