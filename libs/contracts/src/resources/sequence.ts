import { ApiProperty } from '../api-docs';
import { EmailStatus, LawfulBasis, LENSES } from '../enums';
import { ConstProperty, DateTimeProperty, IdProperty, LivemodeProperty } from './api-property';

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
export const SUPPRESSION_SCOPES = ['workspace', 'global'] as const;
export type SuppressionScope = (typeof SUPPRESSION_SCOPES)[number];
export const SEQUENCE_STEP_TYPES = ['email', 'wait'] as const;
export const EMAIL_DIRECTIONS = ['outbound', 'inbound'] as const;

export class SequenceStep {
  @ApiProperty({ type: 'integer', description: '1-based.', minimum: 1 })
  position!: number;

  @ApiProperty({ enum: SEQUENCE_STEP_TYPES })
  type!: (typeof SEQUENCE_STEP_TYPES)[number];

  @ApiProperty({ type: 'string', description: 'Subject line with merge tags, for email steps; a merge tag may carry a fallback after a pipe.', nullable: true })
  subject!: string | null;

  @ApiProperty({ type: 'integer', description: 'For wait steps.', minimum: 0, nullable: true })
  wait_days!: number | null;
}

export class SequenceStats {
  @ApiProperty({ type: 'integer' })
  enrolled!: number;

  @ApiProperty({ type: 'integer' })
  active!: number;

  @ApiProperty({ type: 'integer' })
  sent!: number;

  @ApiProperty({ type: 'integer' })
  replied!: number;

  @ApiProperty({ type: 'integer' })
  bounced!: number;

  @ApiProperty({ type: 'integer' })
  unsubscribed!: number;
}

export class Sequence {
  @IdProperty('seq_')
  id!: string;

  @ConstProperty('sequence')
  object!: 'sequence';

  @ApiProperty({ type: 'string' })
  name!: string;

  @ApiProperty({ enum: LENSES, description: 'Template lens.', nullable: true, required: false })
  lens!: string | null;

  @ApiProperty({ enum: SEQUENCE_STATUSES, description: 'Only `active` sequences send.' })
  status!: SequenceStatus;

  @ApiProperty({ type: 'string', isArray: true, description: 'Mailboxes it rotates through.' })
  mailbox_ids!: string[];

  @ApiProperty({ type: 'boolean', description: 'Whether waits count business days only.' })
  business_days_only!: boolean;

  @ApiProperty({ type: SequenceStep, isArray: true, description: 'In order.' })
  steps!: SequenceStep[];

  @ApiProperty({ type: SequenceStats })
  stats!: SequenceStats;

  @DateTimeProperty()
  created_at!: string;

  @DateTimeProperty('When first launched.', { nullable: true })
  launched_at!: string | null;
}

export class Enrollment {
  @IdProperty('enr_')
  id!: string;

  @ConstProperty('enrollment')
  object!: 'enrollment';

  @ApiProperty({ type: 'string' })
  sequence_id!: string;

  @ApiProperty({ type: 'string' })
  lead_id!: string;

  @ApiProperty({ enum: ENROLLMENT_STATUSES })
  status!: EnrollmentStatus;

  @ApiProperty({ type: 'integer', description: 'Position of the next step to run.' })
  current_step!: number;

  @DateTimeProperty('When the next email is scheduled.', { nullable: true })
  next_send_at!: string | null;

  @DateTimeProperty()
  enrolled_at!: string;

  @DateTimeProperty(undefined, { nullable: true })
  stopped_at!: string | null;

  @ApiProperty({ enum: STOP_REASONS, nullable: true })
  stop_reason!: StopReason | null;
}

/** A lead POST /sequences/{id}/enrollments did not enroll, and why. */
export class EnrollmentSkip {
  @ApiProperty({ type: 'string' })
  lead_id!: string;

  @ApiProperty({ enum: SKIP_REASONS, description: 'New values may be added.' })
  reason!: SkipReason;
}

export class EnrollmentResult {
  @ConstProperty('enrollment_result')
  object!: 'enrollment_result';

  @LivemodeProperty()
  livemode!: boolean;

  @ApiProperty({ type: Enrollment, isArray: true })
  enrolled!: Enrollment[];

  @ApiProperty({ type: EnrollmentSkip, isArray: true })
  skipped!: EnrollmentSkip[];
}

export class Suppression {
  @IdProperty('sup_')
  id!: string;

  @ConstProperty('suppression')
  object!: 'suppression';

  @ApiProperty({ enum: SUPPRESSION_TYPES })
  type!: SuppressionType;

  @ApiProperty({ type: 'string', description: 'The address or domain.' })
  value!: string;

  @ApiProperty({ enum: SUPPRESSION_REASONS })
  reason!: SuppressionReason;

  @ApiProperty({ enum: SUPPRESSION_SCOPES, description: '`global` entries come from the public opt-out portal and apply to every workspace.' })
  scope!: SuppressionScope;

  @DateTimeProperty()
  created_at!: string;
}

export class EmailMessage {
  @IdProperty('msg_')
  id!: string;

  @ConstProperty('email_message', undefined, { required: false })
  object?: 'email_message';

  @ApiProperty({ type: 'string' })
  lead_id!: string;

  @ApiProperty({ type: 'string', description: 'Sequence that sent it.', nullable: true })
  sequence_id!: string | null;

  @ApiProperty({ type: 'string' })
  mailbox_id!: string;

  @ApiProperty({ enum: EMAIL_DIRECTIONS })
  direction!: (typeof EMAIL_DIRECTIONS)[number];

  @ApiProperty({ type: 'string' })
  from!: string;

  @ApiProperty({ type: 'string' })
  to!: string;

  @ApiProperty({ type: 'string' })
  subject!: string;

  @ApiProperty({ type: 'string', description: 'First 200 characters of the plain-text body.', maxLength: 200 })
  snippet!: string;

  @DateTimeProperty('When sent or received.')
  sent_at!: string;
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
