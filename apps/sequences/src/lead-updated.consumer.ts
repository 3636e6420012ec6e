import { EVENT, EventEnvelope, Lead, LeadContact } from '@app/contracts';
import { ConsumerSpec } from '@app/platform';

/**
 * crm changed a lead: the contact snapshot of its live enrollments follows (merge tags, the email
 * status checked before each send, the address itself), older events never overwrite newer
 * snapshots, and a lead held back for a merge tag without value is released to the engine, which
 * renders it again and sends or holds it with the new reason. (crm never clears an address: the
 * API cannot, and enrolled leads have one; `email` keeps the old one should an event say none.)
 */
export const leadUpdatedConsumer: ConsumerSpec = {
  durable: 'sequences-lead-updated',
  types: [EVENT.leadUpdated],
  handle: async (event, tx) => {
    const lead = (event as EventEnvelope<Partial<Lead>>).data?.object;
    if (typeof lead?.id !== 'string' || typeof lead.updated_at !== 'string') return;
    const snapshot: LeadContact = {
      id: lead.id, email: lead.email ?? null, email_status: lead.email_status ?? null, first_name: lead.first_name ?? null,
      last_name: lead.last_name ?? null, full_name: lead.full_name ?? '', title: lead.title ?? null, company_name: lead.company_name ?? null,
      country: lead.country ?? null, lawful_basis: lead.lawful_basis as LeadContact['lawful_basis'], updated_at: lead.updated_at,
    };
    // a held lead (next_send_at null: the engine found it due and could not send) is due again now
    await tx.query(
      `UPDATE enrollments SET lead = $3::jsonb, email = COALESCE($4, email),
         next_send_at = CASE WHEN next_send_at IS NULL AND hold_reason IS NOT NULL THEN date_trunc('milliseconds', now()) ELSE next_send_at END
       WHERE workspace_id = $1 AND lead_id = $2 AND status IN ('active', 'paused')
         AND (lead->>'updated_at' IS NULL OR lead->>'updated_at' <= $5)`,
      [event.workspace_id, lead.id, JSON.stringify(snapshot), snapshot.email, lead.updated_at],
    );
  },
};
