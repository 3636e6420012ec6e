import { EVENT, EventEnvelope } from '@app/contracts';
import { DurableConsumer, EventHandler, Tx } from '@app/platform';
import { EnrollmentsRepository } from './enrollments.repository';

/**
 * crm deleted a lead: its enrollments are deleted (the spec's "Lead deleted" transition: the lead's
 * notes, tasks and enrollments go with it) and its queued emails are cancelled, so no further step
 * is sent. Messages already sent stay, so a sequence's `sent` and `bounced` figures do not change.
 */
@DurableConsumer({ durable: 'sequences-lead-deleted', types: [EVENT.leadDeleted] })
export class LeadDeletedConsumer implements EventHandler {
  constructor(private readonly enrollments: EnrollmentsRepository) {}

  async handle(event: EventEnvelope, tx: Tx): Promise<void> {
    const leadId = (event as EventEnvelope<{ id?: string }>).data?.object?.id;
    if (typeof leadId !== 'string') return;
    // the engine claims enrollments FOR UPDATE: taking the same locks first means a step being
    // claimed right now is either finished (its message is cancelled below) or never claimed
    const ids = await this.enrollments.lockEnrollmentsOfLead(tx, event.workspace_id, leadId);
    if (ids.length === 0) return;
    await this.enrollments.cancelQueuedMessages(tx, ids);
    await this.enrollments.deleteEnrollments(tx, ids);
  }
}
