import { Source } from './lead';

export interface Company {
  id: string;
  object: 'company';
  name: string;
  domain: string | null;
  industry: string | null;
  size: string | null;
  country: string | null;
  city: string | null;
  description: string | null;
  lead_count: number;
  sources: Source[];
  created_at: string;
  updated_at: string;
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
