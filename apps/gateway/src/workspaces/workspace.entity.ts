import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Lens, Plan } from '@app/contracts';

/** A row of `workspaces` (the schema is the migrations'; this maps it). */
@Entity({ name: 'workspaces' })
export class WorkspaceEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  plan!: Plan;

  @Column({ type: 'text', array: true })
  lenses!: Lens[];

  @Column({ type: 'text', name: 'owner_id' })
  ownerId!: string;

  /** Set by the database's default. */
  @Column({ type: 'timestamptz', name: 'created_at', insert: false, update: false })
  createdAt!: Date;
}
