import { PoolClient } from 'pg';
import { EmailMessage, EVENT, EventEnvelope } from '@app/contracts';
import { DurableConsumer, EventHandler, recordEvent } from '@app/platform';
import { LEAD_COLUMNS, LeadRow, renderLead } from './lead.row';

/**
 * A hard bounce (sequences' `email.bounced`) makes the lead's email `invalid`, and `lead.updated`
 * says so with the old value in `previous_attributes`, in one transaction. A durable consumer,
 * so a bounce that arrives while crm is down is applied when it is back. Only while the lead
 * still has the address that bounced; a lead already `invalid` changes nothing.
 */
@DurableConsumer({ durable: 'crm-email-bounced', types: [EVENT.emailBounced] })
export class EmailBouncedConsumer implements EventHandler {
  async handle(event: EventEnvelope, tx: PoolClient): Promise<void> {
    const message = (event as EventEnvelope<Partial<EmailMessage>>).data?.object;
    if (typeof message?.lead_id !== 'string' || typeof message.to !== 'string') return;
    const { rows } = await tx.query<Pick<LeadRow, 'email_status'>>(
      `SELECT email_status FROM leads WHERE workspace_id = $1 AND id = $2 AND lower(email) = lower($3) FOR UPDATE`,
      [event.workspace_id, message.lead_id, message.to],
    );
    if (!rows[0] || rows[0].email_status === 'invalid') return;
    const updated = await tx.query<LeadRow>(
      `UPDATE leads SET email_status = 'invalid', updated_at = date_trunc('milliseconds', now()) WHERE workspace_id = $1 AND id = $2 RETURNING ${LEAD_COLUMNS}`,
      [event.workspace_id, message.lead_id],
    );
    await recordEvent(tx, {
      type: EVENT.leadUpdated, workspace_id: event.workspace_id, livemode: event.livemode, api_version: event.api_version,
      object: renderLead(updated.rows[0]), previous_attributes: { email_status: rows[0].email_status },
    });
  }
}
