import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A lead's membership of a list (migration 0008_lists); it leaves with its list or its lead (ON DELETE CASCADE). */
@Entity({ name: 'list_members' })
export class ListMemberEntity {
  @PrimaryColumn({ type: 'text' })
  list_id!: string;

  @PrimaryColumn({ type: 'text' })
  lead_id!: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  added_at!: Date;
}
