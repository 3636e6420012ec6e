import { EmailMessage, EVENT, EventEnvelope } from '@app/contracts';
import { DurableConsumer, EventHandler, recordEvent, Tx } from '@app/platform';
import { renderLead } from './lead.mapper';
import { LeadsRepository } from './leads.repository';

/**
 * A hard bounce (sequences' `email.bounced`) makes the lead's email `invalid`, and `lead.updated`
 * says so with the old value in `previous_attributes`, in one transaction. A durable consumer,
 * so a bounce that arrives while crm is down is applied when it is back. Only while the lead
 * still has the address that bounced; a lead already `invalid` changes nothing.
 */
@DurableConsumer({ durable: 'crm-email-bounced', types: [EVENT.emailBounced] })
export class EmailBouncedConsumer implements EventHandler {
  constructor(private readonly leads: LeadsRepository) {}

  async handle(event: EventEnvelope, tx: Tx): Promise<void> {
    const message = (event as EventEnvelope<Partial<EmailMessage>>).data?.object;
    if (typeof message?.lead_id !== 'string' || typeof message.to !== 'string') return;
    const before = await this.leads.lockWithAddress(tx, event.workspace_id, message.lead_id, message.to);
    if (!before || before.email_status === 'invalid') return;
    const updated = await this.leads.markEmailInvalid(tx, event.workspace_id, message.lead_id);
    await recordEvent(tx, {
      type: EVENT.leadUpdated, workspace_id: event.workspace_id, livemode: event.livemode, api_version: event.api_version,
      object: renderLead(updated), previous_attributes: { email_status: before.email_status },
    });
  }
}
