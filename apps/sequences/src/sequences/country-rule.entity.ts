import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CountryRule } from '@app/contracts';

/** The `country_rules` table: a workspace's overrides of the default rules (country-rules.ts). */
@Entity({ name: 'country_rules' })
export class CountryRuleEntity {
  @PrimaryColumn({ type: 'text' })
  workspace_id: string;

  @PrimaryColumn({ type: 'text' })
  country: string;

  @Column({ type: 'text' })
  rule: CountryRule;

  @Column({ type: 'timestamptz' })
  updated_at: Date;
}
