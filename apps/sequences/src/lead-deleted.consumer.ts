import { EVENT, EventEnvelope } from '@app/contracts';
import { ConsumerSpec } from '@app/platform';

/**
 * crm deleted a lead: its enrollments are deleted (the spec's "Lead deleted" transition: the lead's
 * notes, tasks and enrollments go with it) and its queued emails are cancelled, so no further step
 * is sent. Messages already sent stay, so a sequence's `sent` and `bounced` figures do not change.
 */
export const leadDeletedConsumer: ConsumerSpec = {
  durable: 'sequences-lead-deleted',
  types: [EVENT.leadDeleted],
  handle: async (event, tx) => {
    const leadId = (event as EventEnvelope<{ id?: string }>).data?.object?.id;
    if (typeof leadId !== 'string') return;
    // the engine claims enrollments FOR UPDATE: taking the same locks first means a step being
    // claimed right now is either finished (its message is cancelled below) or never claimed
    const { rows } = await tx.query<{ id: string }>(
      `SELECT id FROM enrollments WHERE workspace_id = $1 AND lead_id = $2 ORDER BY id FOR UPDATE`,
      [event.workspace_id, leadId],
    );
    if (rows.length === 0) return;
    const ids = rows.map((r) => r.id);
    await tx.query(`UPDATE email_messages SET status = 'cancelled', lease_until = NULL WHERE enrollment_id = ANY($1) AND status = 'queued'`, [ids]);
    await tx.query(`DELETE FROM enrollments WHERE id = ANY($1)`, [ids]);
  },
};
