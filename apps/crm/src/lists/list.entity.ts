import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A list of leads (migration 0008_lists); names are unique in a workspace by exact spelling. */
@Entity({ name: 'lists' })
export class ListEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  workspace_id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'timestamptz', default: () => "date_trunc('milliseconds', now())" })
  created_at!: Date;
}
