import { EVENT, EventEnvelope } from '@app/contracts';
import { ConsumerSpec } from '@app/platform';

/** crm deleted a lead: its enrollments stop (`removed`) and its queued emails are cancelled. */
export const leadDeletedConsumer: ConsumerSpec = {
  durable: 'sequences-lead-deleted',
  types: [EVENT.leadDeleted],
  handle: async (event, tx) => {
    const leadId = (event as EventEnvelope<{ id?: string }>).data?.object?.id;
    if (typeof leadId !== 'string') return;
    const { rows } = await tx.query<{ id: string }>(
      `UPDATE enrollments SET status = 'stopped', stop_reason = 'removed', stopped_at = date_trunc('milliseconds', now()), next_send_at = NULL
       WHERE workspace_id = $1 AND lead_id = $2 AND status IN ('active', 'paused') RETURNING id`,
      [event.workspace_id, leadId],
    );
    if (rows.length > 0) {
      await tx.query(`UPDATE email_messages SET status = 'cancelled', lease_until = NULL WHERE enrollment_id = ANY($1) AND status = 'queued'`, [rows.map((r) => r.id)]);
    }
  },
};
