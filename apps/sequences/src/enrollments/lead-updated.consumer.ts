import { EVENT, EventEnvelope, Lead, LeadContact } from '@app/contracts';
import { DurableConsumer, EventHandler, Tx } from '@app/platform';
import { EnrollmentsRepository } from './enrollments.repository';

/**
 * crm changed a lead: the contact snapshot of its live enrollments follows (merge tags, the email
 * status checked before each send, the address itself), older events never overwrite newer
 * snapshots, and a lead held back for a merge tag without value is released to the engine, which
 * renders it again and sends or holds it with the new reason. (crm never clears an address: the
 * API cannot, and enrolled leads have one; `email` keeps the old one should an event say none.)
 */
@DurableConsumer({ durable: 'sequences-lead-updated', types: [EVENT.leadUpdated] })
export class LeadUpdatedConsumer implements EventHandler {
  constructor(private readonly enrollments: EnrollmentsRepository) {}

  async handle(event: EventEnvelope, tx: Tx): Promise<void> {
    const lead = (event as EventEnvelope<Partial<Lead>>).data?.object;
    if (typeof lead?.id !== 'string' || typeof lead.updated_at !== 'string') return;
    const snapshot: LeadContact & { updated_at: string } = {
      id: lead.id, email: lead.email ?? null, email_status: lead.email_status ?? null, first_name: lead.first_name ?? null,
      last_name: lead.last_name ?? null, full_name: lead.full_name ?? '', title: lead.title ?? null, company_name: lead.company_name ?? null,
      country: lead.country ?? null, lawful_basis: lead.lawful_basis as LeadContact['lawful_basis'], updated_at: lead.updated_at,
    };
    await this.enrollments.followLeadSnapshot(tx, event.workspace_id, snapshot);
  }
}
