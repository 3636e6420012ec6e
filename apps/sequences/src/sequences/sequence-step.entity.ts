import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The `sequence_steps` table: a sequence's steps by position (the schema is the migrations'). */
@Entity({ name: 'sequence_steps' })
export class SequenceStepEntity {
  @PrimaryColumn({ type: 'text' })
  sequence_id: string;

  @PrimaryColumn({ type: 'int' })
  position: number;

  @Column({ type: 'text' })
  type: 'email' | 'wait';

  @Column({ type: 'text', nullable: true })
  subject: string | null;

  @Column({ type: 'text', nullable: true })
  body: string | null;

  @Column({ type: 'int', nullable: true })
  wait_days: number | null;
}
