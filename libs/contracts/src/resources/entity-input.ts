import { Lens } from '../enums';
import { SourceRecord } from './search';

/*
 * The entities the operator loads into the search index (search.ingest, search.seed): what the
 * admin CLI's provider-file connectors and the seed generator produce, and what search stores.
 */

/** One entity as the connectors and the seed generator produce it. */
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
  /** Words free text matches beyond the fields and details searchTextOf reads. */
  search_text?: string;
}

export const facet = (key: string, value: string): string => `${key}:${value.trim().toLowerCase()}`;
