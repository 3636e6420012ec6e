import { EmailMessage } from '@app/contracts';

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
