import { SUBJECTS } from '@app/contracts';
import { WarmUpCall, warmUpId } from '@app/platform';

/**
 * search's warm-up (libs/platform warm-up.ts): a search page as a test key reads it (nothing
 * charged), a reveal of an entity that does not exist, an organisation look-up.
 */
export const SEARCH_WARM_UP: WarmUpCall[] = [
  { subject: SUBJECTS.search.query, body: { lens: 'leads', q: 'software' } },
  { subject: SUBJECTS.search.revealsCreate, body: { entity_id: warmUpId('ent_') } },
  { subject: SUBJECTS.search.organizationsMatch, body: { domain: 'warm-up.invalid', name: 'Warm Up' } },
];
