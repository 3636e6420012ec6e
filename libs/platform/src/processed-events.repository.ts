import { Queryable } from './db';

/**
 * Records in the consumer's transaction (`tx`) that `consumer` handled `eventId`; false when it
 * already had, so a redelivered event is applied once (`processed_events`).
 */
export async function markProcessed(tx: Queryable, consumer: string, eventId: string): Promise<boolean> {
  const fresh = await tx.query('INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [consumer, eventId]);
  return fresh.rowCount === 1;
}
