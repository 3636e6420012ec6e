import { Column, Entity, PrimaryColumn, ValueTransformer } from 'typeorm';

/** A `time` column as the API and the schedule read it: `HH:MM` (PostgreSQL answers `HH:MM:SS`). */
const hoursAndMinutes: ValueTransformer = {
  from: (value: string) => value.slice(0, 5),
  to: (value: string) => value,
};

/** The `mailboxes` table (the schema is the migrations'); credentials sealed by SecretBox. */
@Entity({ name: 'mailboxes' })
export class MailboxEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text' })
  workspace_id: string;

  @Column({ type: 'text' })
  email: string;

  @Column({ type: 'text' })
  smtp_host: string;

  @Column({ type: 'int' })
  smtp_port: number;

  @Column({ type: 'boolean' })
  smtp_secure: boolean;

  /** `user:password` of the SMTP URL, sealed. */
  @Column({ type: 'text', nullable: true })
  smtp_auth_enc: string | null;

  /** The whole IMAP URL, sealed. */
  @Column({ type: 'text', nullable: true })
  imap_url_enc: string | null;

  @Column({ type: 'text', nullable: true })
  imap_host: string | null;

  @Column({ type: 'int' })
  daily_cap: number;

  @Column({ type: 'text' })
  timezone: string;

  @Column({ type: 'time', transformer: hoursAndMinutes })
  window_start: string;

  @Column({ type: 'time', transformer: hoursAndMinutes })
  window_end: string;

  @Column({ type: 'boolean' })
  verified: boolean;

  /** Set by the database (millisecond precision). */
  @Column({ type: 'timestamptz', insert: false, update: false })
  created_at: Date;
}
