import { EmailStatus, Lens, SourceProvider } from '../enums';
import { CompanyFact } from './company';

export interface SourceRecord {
  field: string;
  value: string;
  source_url: string;
  provider: SourceProvider;
  fetched_at: string;
}

export interface SearchHit {
  entity_id: string;
  lens: Lens;
  name: string;
  person_name: string | null;
  title: string | null;
  organization: string | null;
  location: string | null;
  email_masked: string | null;
  email_status: EmailStatus | null;
  phone_masked: string | null;
  revealed: boolean;
  match_score: number | null;
  details: Record<string, unknown>;
  sources: SourceRecord[];
}

export interface SearchResults {
  object: 'search_results';
  lens: Lens;
  query: string;
  page: number;
  per_page: 25;
  has_more: boolean;
  credits_charged: number;
  livemode: boolean;
  data: SearchHit[];
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

export interface Reveal {
  id: string;
  object: 'reveal';
  entity_id: string;
  lead_id: string | null;
  status: RevealStatus;
  email: string | null;
  email_status: EmailStatus | null;
  email_confidence: number | null;
  phone: string | null;
  credits_charged: number;
  already_revealed: boolean;
  livemode: boolean;
  sources: SourceRecord[];
  created_at: string;
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
