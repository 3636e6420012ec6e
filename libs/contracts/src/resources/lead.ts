import { ApiProperty, ApiPropertyOptional, ApiSchema } from '../api-docs';
import { EMAIL_STATUSES, EmailStatus, LAWFUL_BASES, LawfulBasis, LENSES, Lens, SOURCE_PROVIDERS, SourceProvider } from '../enums';
import { ConstProperty, DateTimeProperty, IdProperty } from './api-property';

@ApiSchema({ description: 'Provenance record of a contact field.' })
export class Source {
  @ApiProperty({ type: 'string', description: 'The field this record backs (for example email, title, organization).' })
  field!: string;

  @ApiProperty({ type: 'string', description: 'Value as found at the source.' })
  value!: string;

  @ApiProperty({ type: 'string', description: 'Public URL where found.', format: 'uri' })
  source_url!: string;

  @ApiProperty({ enum: SOURCE_PROVIDERS })
  provider!: SourceProvider;

  @DateTimeProperty('When fetched.')
  fetched_at!: string;
}

export class StageRef {
  @ApiProperty({ type: 'string' })
  pipeline_id!: string;

  @ApiProperty({ type: 'string' })
  stage_id!: string;

  @ApiProperty({ type: 'string' })
  name!: string;
}

export type CustomFieldValue = string | number | boolean;

export class Lead {
  @IdProperty('lead_')
  id!: string;

  @ConstProperty('lead')
  object!: 'lead';

  @ApiProperty({ enum: LENSES })
  lens!: Lens;

  @ApiProperty({ type: 'string', nullable: true, required: false })
  first_name!: string | null;

  @ApiProperty({ type: 'string', nullable: true, required: false })
  last_name!: string | null;

  @ApiProperty({ type: 'string', description: 'Display name; for organizations the organization name.' })
  full_name!: string;

  @ApiProperty({ type: 'string', description: 'Job title or role.', nullable: true, required: false })
  title!: string | null;

  @ApiProperty({ type: 'string', description: 'Null until revealed.', format: 'email', nullable: true })
  email!: string | null;

  @ApiProperty({ enum: EMAIL_STATUSES, description: 'Null until revealed and checked.', nullable: true })
  email_status!: EmailStatus | null;

  @ApiProperty({ type: 'integer', description: '0 to 100.', minimum: 0, maximum: 100, nullable: true, required: false })
  email_confidence!: number | null;

  @ApiProperty({ type: 'string', description: 'E.164.', nullable: true, required: false })
  phone!: string | null;

  @ApiProperty({ type: 'string', format: 'uri', nullable: true, required: false })
  website!: string | null;

  @ApiProperty({ type: 'string', description: 'Prefix `co_`.', nullable: true, required: false })
  company_id!: string | null;

  @ApiProperty({ type: 'string', nullable: true, required: false })
  company_name!: string | null;

  @ApiProperty({ type: 'string', description: 'ISO 3166-1 alpha-2; drives per-country sending rules.', nullable: true, required: false })
  country!: string | null;

  @ApiProperty({ type: 'boolean', description: 'Whether contact details were revealed in this workspace.' })
  revealed!: boolean;

  @ApiProperty({ enum: LAWFUL_BASES, description: 'GDPR basis.' })
  lawful_basis!: LawfulBasis;

  @ApiProperty({ type: 'string', description: 'Owning workspace member.', nullable: true, required: false })
  owner_id!: string | null;

  @ApiProperty({ type: 'string', isArray: true, description: 'Tag names.' })
  tags!: string[];

  @ApiProperty({ type: StageRef, nullable: true })
  stage!: StageRef | null;

  @ApiPropertyOptional({
    type: 'object',
    description: 'Values keyed by custom field key.',
    additionalProperties: { type: ['string', 'number', 'boolean'] },
  })
  custom_fields!: Record<string, CustomFieldValue>;

  @DateTimeProperty()
  created_at!: string;

  @DateTimeProperty()
  updated_at!: string;

  @ApiProperty({
    type: Source,
    isArray: true,
    description: 'Provenance for every stored field. Present on a single lead; absent from list entries.',
    required: false,
  })
  sources?: Source[];
}
