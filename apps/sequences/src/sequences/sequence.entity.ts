import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Sequence } from '@app/contracts';

/** The `sequences` table (the schema is the migrations'). */
@Entity({ name: 'sequences' })
export class SequenceEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text' })
  workspace_id: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', nullable: true })
  lens: string | null;

  /** `draft` by the database's default at insert. */
  @Column({ type: 'text', insert: false })
  status: Sequence['status'];

  @Column({ type: 'text', array: true })
  mailbox_ids: string[];

  @Column({ type: 'boolean' })
  business_days_only: boolean;

  @Column({ type: 'text', nullable: true, insert: false })
  paused_reason: string | null;

  /** Set by the database (millisecond precision). */
  @Column({ type: 'timestamptz', insert: false, update: false })
  created_at: Date;

  @Column({ type: 'timestamptz', nullable: true, insert: false })
  launched_at: Date | null;
}
