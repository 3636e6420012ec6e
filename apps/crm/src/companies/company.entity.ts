import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Source } from '@app/contracts';

/** A company of a workspace (migrations 0001_leads, 0004_companies_pipelines); lead_count is kept by a trigger on leads. */
@Entity({ name: 'companies' })
export class CompanyEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  workspace_id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  domain!: string | null;

  @Column({ type: 'text', nullable: true })
  industry!: string | null;

  @Column({ type: 'text', nullable: true })
  size!: string | null;

  @Column({ type: 'text', nullable: true })
  country!: string | null;

  @Column({ type: 'text', nullable: true })
  city!: string | null;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'int', default: 0 })
  lead_count!: number;

  @Column({ type: 'json', default: () => "'[]'" })
  sources!: Source[];

  @Column({ type: 'timestamptz', default: () => "date_trunc('milliseconds', now())" })
  created_at!: Date;

  @Column({ type: 'timestamptz', default: () => "date_trunc('milliseconds', now())" })
  updated_at!: Date;
}
