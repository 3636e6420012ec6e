import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Suppression } from '@app/contracts';

/** The `suppressions` table: a workspace's entries, and global ones with no workspace. */
@Entity({ name: 'suppressions' })
export class SuppressionEntity {
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text', nullable: true })
  workspace_id: string | null;

  @Column({ type: 'text' })
  scope: 'workspace' | 'global';

  @Column({ type: 'text' })
  type: 'email' | 'domain';

  /** Lower-cased. */
  @Column({ type: 'text' })
  value: string;

  @Column({ type: 'text' })
  reason: Suppression['reason'];

  /** Set by the database (millisecond precision). */
  @Column({ type: 'timestamptz', insert: false, update: false })
  created_at: Date;
}
