import { Column, Entity, PrimaryColumn } from 'typeorm';
import { MemberRole } from '@app/contracts';

/** A row of `members`: who an API key acts as. */
@Entity({ name: 'members' })
export class MemberEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', name: 'workspace_id' })
  workspaceId!: string;

  @Column({ type: 'text' })
  role!: MemberRole;

  /** Set by the database's default. */
  @Column({ type: 'timestamptz', name: 'created_at', insert: false, update: false })
  createdAt!: Date;
}
