import { Lens, SourceRecord } from '@app/contracts';

/** One entity as connectors and the seed generator produce it. */
export interface EntityInput {
  ext_key: string;
  lens: Lens;
  name: string;
  person_name?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  title?: string | null;
  organization?: string | null;
  location?: string | null;
  country?: string | null;
  domain?: string | null;
  email?: string | null;
  phone?: string | null;
  details: Record<string, unknown>;
  facets: string[];
  num_min?: number | null;
  num_max?: number | null;
  rank_score?: number;
  sources: SourceRecord[];
  search_text?: string;
}

export const facet = (key: string, value: string): string => `${key}:${value.trim().toLowerCase()}`;

/** `jane@acme.com` -> `j***@acme.com` */
export function maskEmail(email: string | null): string | null {
  if (!email) return null;
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

/** `+14155550123` -> `+1415***0123` */
export function maskPhone(phone: string | null): string | null {
  if (!phone) return null;
  if (phone.length <= 6) return '***';
  return `${phone.slice(0, Math.min(5, phone.length - 4))}***${phone.slice(-4)}`;
}

export function searchTextOf(e: EntityInput): string {
  return [e.name, e.person_name, e.organization, e.title, e.domain, e.location, e.search_text].filter(Boolean).join(' ');
}
