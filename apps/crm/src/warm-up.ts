import { SUBJECTS } from '@app/contracts';
import { WarmUpCall, warmUpId } from '@app/platform';

/**
 * crm's warm-up (libs/platform warm-up.ts): its reads for the reserved workspace, which find
 * nothing, and its writes in transactions that roll back. A create carries an Idempotency-Key, so
 * it takes the transaction every keyed create takes (as the API's do). Not asked: pipelines.list,
 * which provisions a workspace's default pipeline outside a transaction.
 */
export const CRM_WARM_UP: WarmUpCall[] = [
  { subject: SUBJECTS.crm.leadsList, body: { limit: 25 } },
  { subject: SUBJECTS.crm.leadsGet, body: { id: warmUpId('lead_') } },
  { subject: SUBJECTS.crm.leadsGetMany, body: { ids: [warmUpId('lead_')] } },
  {
    subject: SUBJECTS.crm.leadsCreate,
    body: { full_name: 'Warm Up', first_name: 'Warm', email: 'warm-up@warm-up.invalid' },
    ctx: { idempotency: { key: warmUpId('idem_'), request_hash: 'warm-up' } },
  },
  { subject: SUBJECTS.crm.leadsUpdate, body: { id: warmUpId('lead_'), changes: { title: 'Warm-up' } } },
  {
    subject: SUBJECTS.crm.leadsUpsertFromReveal,
    body: {
      entity_id: warmUpId('ent_'), lens: 'leads', full_name: 'Warm Up', first_name: 'Warm', last_name: 'Up', title: null,
      email: 'warm-up@warm-up.invalid', email_status: 'valid', email_confidence: 95, phone: null, company_name: null,
      company_domain: null, country: null, sources: [],
    },
  },
  { subject: SUBJECTS.crm.companiesList, body: { limit: 25 } },
  { subject: SUBJECTS.crm.tasksList, body: { limit: 25 } },
];
