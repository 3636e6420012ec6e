import { ApiProperty } from '../api-docs';
import { COMPANY_SIZES } from '../enums';
import { ConstProperty, DateTimeProperty, IdProperty } from './api-property';
import { Source } from './lead';

export class Company {
  @IdProperty('co_')
  id!: string;

  @ConstProperty('company')
  object!: 'company';

  @ApiProperty({ type: 'string' })
  name!: string;

  @ApiProperty({ type: 'string', description: 'Primary domain.', nullable: true })
  domain!: string | null;

  @ApiProperty({ type: 'string', description: 'Industry key.', nullable: true, required: false })
  industry!: string | null;

  @ApiProperty({ enum: COMPANY_SIZES, description: 'Employee range.', nullable: true, required: false })
  size!: string | null;

  @ApiProperty({ type: 'string', description: 'ISO country code.', nullable: true, required: false })
  country!: string | null;

  @ApiProperty({ type: 'string', nullable: true, required: false })
  city!: string | null;

  @ApiProperty({ type: 'string', description: "Short description from the company's own site.", nullable: true, required: false })
  description!: string | null;

  @ApiProperty({ type: 'integer', description: 'Leads linked to it in the workspace.', minimum: 0 })
  lead_count!: number;

  @ApiProperty({ type: Source, isArray: true })
  sources!: Source[];

  @DateTimeProperty()
  created_at!: string;

  @DateTimeProperty()
  updated_at!: string;
}

/** The company fields other records may fill (industry, size, country, city, description). */
export const COMPANY_FACT_FIELDS = ['industry', 'size', 'country', 'city', 'description'] as const;
export type CompanyFactField = (typeof COMPANY_FACT_FIELDS)[number];

/**
 * One value of a company field as a record carried it, with the Source that backs it (null when
 * the record has no public URL, as a lead created through the API without `source_url`).
 */
export interface CompanyFact {
  field: CompanyFactField;
  value: string;
  source: Source | null;
}

/** search.organizations.match: the company facts of the organisation record (OpenCorporates, SEC issuer) with this domain or name. */
export interface MatchOrganizationRequest {
  domain: string | null;
  name: string | null;
}
