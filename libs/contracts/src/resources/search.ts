import { ApiProperty } from '../api-docs';
import { EMAIL_STATUSES, EmailStatus, LENSES, Lens } from '../enums';
import { ConstProperty, DateTimeProperty, IdProperty, LivemodeProperty } from './api-property';
import { Source } from './lead';
import { CompanyFact } from './company';

/** The provenance record search keeps with an entity: the same as a lead's. */
export type SourceRecord = Source;

export class SearchHit {
  @IdProperty('ent_')
  entity_id!: string;

  @ApiProperty({ enum: LENSES })
  lens!: Lens;

  @ApiProperty({ type: 'string', description: 'Organization, grant program or person name.' })
  name!: string;

  @ApiProperty({ type: 'string', description: 'Contact person when the hit is an organization with a known contact.', nullable: true, required: false })
  person_name!: string | null;

  @ApiProperty({ type: 'string', description: "Contact's role.", nullable: true, required: false })
  title!: string | null;

  @ApiProperty({ type: 'string', description: 'Organization, fund, institution or agency.', nullable: true, required: false })
  organization!: string | null;

  @ApiProperty({ type: 'string', description: 'City, region and country.', nullable: true, required: false })
  location!: string | null;

  @ApiProperty({ type: 'string', description: 'Masked email; null if no email is known yet.', nullable: true })
  email_masked!: string | null;

  @ApiProperty({ enum: EMAIL_STATUSES, description: 'Null until the email is revealed and checked.', nullable: true, required: false })
  email_status!: EmailStatus | null;

  @ApiProperty({ type: 'string', nullable: true, required: false })
  phone_masked!: string | null;

  @ApiProperty({ type: 'boolean', description: 'Whether this workspace already revealed the entity. Revealing again is free.' })
  revealed!: boolean;

  @ApiProperty({
    type: 'integer',
    description: '0 to 100. Investors lens: fit against the opportunity profile; null in other lenses.',
    minimum: 0,
    maximum: 100,
    nullable: true,
    required: false,
  })
  match_score!: number | null;

  @ApiProperty({ type: 'object', description: 'Lens-specific fields.', additionalProperties: true })
  details!: Record<string, unknown>;

  @ApiProperty({ type: Source, isArray: true })
  sources!: SourceRecord[];
}

export class SearchResults {
  @ConstProperty('search_results')
  object!: 'search_results';

  @ApiProperty({ enum: LENSES })
  lens!: Lens;

  @ApiProperty({ type: 'string', description: 'The query sent.' })
  query!: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  page!: number;

  @ConstProperty(25, 'Always 25.')
  per_page!: 25;

  @ApiProperty({ type: 'boolean', description: 'Another page exists.' })
  has_more!: boolean;

  @ApiProperty({ type: 'integer', description: '1 on a live key, 0 on a test key.', minimum: 0 })
  credits_charged!: number;

  @LivemodeProperty()
  livemode!: boolean;

  @ApiProperty({ type: SearchHit, isArray: true, description: 'Contact details masked.' })
  data!: SearchHit[];
}

/** The search filters per lens (spec: GET /search). */
export const SEARCH_FILTER_KEYS: Record<Lens, readonly string[]> = {
  leads: ['industry', 'country', 'size', 'title'],
  investors: ['stage', 'sector', 'type', 'check_min', 'check_max', 'state'],
  researchers: ['region', 'country', 'institution', 'min_works', 'recency'],
  grants: ['agency', 'program', 'mechanism', 'deadline_before'],
};

export const SEARCH_PER_PAGE = 25;
export const SEARCH_MAX_PAGE = 40;
export const SEARCH_Q_MAX = 200;

/** What the gateway sends on search.entities.search once the query is validated. */
export interface SearchRequest {
  lens: Lens;
  q: string;
  filters: Record<string, string[]>;
  page: number;
}

export interface CreateRevealRequest {
  entity_id: string;
}

export const REVEAL_STATUSES = ['revealed', 'no_contact_found', 'dry_run'] as const;
export type RevealStatus = (typeof REVEAL_STATUSES)[number];

export class Reveal {
  @IdProperty('rev_')
  id!: string;

  @ConstProperty('reveal')
  object!: 'reveal';

  @ApiProperty({ type: 'string', description: 'The revealed entity.' })
  entity_id!: string;

  @ApiProperty({ type: 'string', description: 'Lead created or updated; null for test-key dry runs.', nullable: true })
  lead_id!: string | null;

  @ApiProperty({ enum: REVEAL_STATUSES, description: '`revealed` (details returned), `no_contact_found` (credit refunded), `dry_run` (test key).' })
  status!: RevealStatus;

  @ApiProperty({ type: 'string', nullable: true })
  email!: string | null;

  @ApiProperty({ enum: EMAIL_STATUSES, nullable: true, required: false })
  email_status!: EmailStatus | null;

  @ApiProperty({ type: 'integer', description: '0 to 100.', minimum: 0, maximum: 100, nullable: true, required: false })
  email_confidence!: number | null;

  @ApiProperty({ type: 'string', description: 'E.164.', nullable: true, required: false })
  phone!: string | null;

  @ApiProperty({ type: 'integer', description: 'Net credits charged, 0 to 1.', minimum: 0, maximum: 1 })
  credits_charged!: number;

  @ApiProperty({ type: 'boolean', description: 'True when the workspace had already revealed the entity.' })
  already_revealed!: boolean;

  @LivemodeProperty()
  livemode!: boolean;

  @ApiProperty({ type: Source, isArray: true })
  sources!: SourceRecord[];

  @DateTimeProperty('When the reveal happened.')
  created_at!: string;
}

/** search.reveals.create answers the reveal and whether it was created now (201) or before (200). */
export interface RevealOutcome {
  reveal: Reveal;
  created: boolean;
}

/** The workspace's opportunity profile, scored against investors. */
export interface OpportunityProfile {
  sectors?: string[];
  stage?: string;
  amount_usd?: number;
  location?: string;
}

/** crm.leads.upsertFromReveal */
export interface UpsertFromRevealRequest {
  entity_id: string;
  lens: Lens;
  full_name: string;
  first_name: string | null;
  last_name: string | null;
  title: string | null;
  email: string | null;
  email_status: EmailStatus | null;
  email_confidence: number | null;
  phone: string | null;
  company_name: string | null;
  company_domain: string | null;
  country: string | null;
  sources: SourceRecord[];
  /** What the entity and the organisation record it matched say of the company, each with its Source. */
  company_facts?: CompanyFact[];
}
