import { EmailStatus, LawfulBasis } from '../enums';

export const SEQUENCE_STATUSES = ['draft', 'active', 'paused', 'completed'] as const;
export type SequenceStatus = (typeof SEQUENCE_STATUSES)[number];
export const ENROLLMENT_STATUSES = ['active', 'paused', 'completed', 'stopped'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];
export const STOP_REASONS = ['replied', 'bounced', 'unsubscribed', 'removed', 'suppressed'] as const;
export type StopReason = (typeof STOP_REASONS)[number];
export const SKIP_REASONS = ['already_enrolled', 'suppressed', 'no_email', 'email_invalid', 'country_blocked', 'not_found'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];
export const SUPPRESSION_TYPES = ['email', 'domain'] as const;
export type SuppressionType = (typeof SUPPRESSION_TYPES)[number];
export const SUPPRESSION_REASONS = ['unsubscribe', 'bounce', 'complaint', 'opt_out', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];
/** Reasons a caller of POST /suppressions may give (the others are the system's own). */
export const API_SUPPRESSION_REASONS = ['unsubscribe', 'complaint', 'manual'] as const;
export type SuppressionScope = 'workspace' | 'global';
export const COUNTRY_RULES = ['allow', 'block', 'consent_required'] as const;
export type CountryRule = (typeof COUNTRY_RULES)[number];

export interface SequenceStep {
  position: number;
  type: 'email' | 'wait';
  subject: string | null;
  wait_days: number | null;
}

export interface SequenceStats {
  enrolled: number;
  active: number;
  sent: number;
  replied: number;
  bounced: number;
  unsubscribed: number;
}

export interface Sequence {
  id: string;
  object: 'sequence';
  name: string;
  lens: string | null;
  status: SequenceStatus;
  mailbox_ids: string[];
  business_days_only: boolean;
  steps: SequenceStep[];
  stats: SequenceStats;
  created_at: string;
  launched_at: string | null;
}

export interface Enrollment {
  id: string;
  object: 'enrollment';
  sequence_id: string;
  lead_id: string;
  status: EnrollmentStatus;
  current_step: number;
  next_send_at: string | null;
  enrolled_at: string;
  stopped_at: string | null;
  stop_reason: StopReason | null;
}

export interface EnrollmentResult {
  object: 'enrollment_result';
  livemode: boolean;
  enrolled: Enrollment[];
  skipped: { lead_id: string; reason: SkipReason }[];
}

export interface Suppression {
  id: string;
  object: 'suppression';
  type: SuppressionType;
  value: string;
  reason: SuppressionReason;
  scope: SuppressionScope;
  created_at: string;
}

export interface EmailMessage {
  id: string;
  lead_id: string;
  sequence_id: string | null;
  mailbox_id: string;
  direction: 'outbound' | 'inbound';
  from: string;
  to: string;
  subject: string;
  snippet: string;
  sent_at: string;
}

/** A mailbox as the application side sees it (credentials never leave the sequences service). */
export interface Mailbox {
  id: string;
  object: 'mailbox';
  email: string;
  smtp_host: string;
  smtp_port: number;
  imap_host: string | null;
  daily_cap: number;
  timezone: string;
  window_start: string;
  window_end: string;
  verified: boolean;
  created_at: string;
}

/** What sequences needs of a lead, fetched from crm in one batch (crm.leads.getMany). */
export interface LeadContact {
  id: string;
  email: string | null;
  email_status: EmailStatus | null;
  first_name: string | null;
  last_name: string | null;
  full_name: string;
  title: string | null;
  company_name: string | null;
  country: string | null;
  lawful_basis: LawfulBasis;
  /** When crm last changed the lead (ISO 8601, milliseconds): later updates replace older snapshots only. */
  updated_at?: string;
}
