import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A tag name of a workspace (migration 0001_leads): exact spelling, so `VIP` and `vip` are two.
 * Only a lead's create writes tags, in its own hand-written statement (LeadsRepository.ensureTags).
 */
@Entity({ name: 'tags' })
export class TagEntity {
  @PrimaryColumn({ type: 'text' })
  workspace_id!: string;

  @PrimaryColumn({ type: 'text' })
  name!: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created_at!: Date;
}
