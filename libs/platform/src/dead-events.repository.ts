import { Pool } from 'pg';
import { EventEnvelope } from '@app/contracts';

/** A stored dead event, as `dead_events` holds it. */
export interface DeadEventRow {
  consumer: string;
  event_id: string;
  type: string;
  envelope: EventEnvelope;
  last_error: string;
  attempts: number;
  first_failed_at: Date;
  last_failed_at: Date;
}

/** Every statement on `dead_events` (DEAD_EVENTS_MIGRATION), the store DeadLetters keeps. */
export class DeadEventsRepository {
  constructor(private readonly pool: Pool) {}

  /** Stores an event after its last delivery failed; one stored again adds its attempts to the earlier ones. */
  async store(consumer: string, event: EventEnvelope, lastError: string, attempts: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO dead_events (consumer, event_id, type, envelope, last_error, attempts) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (consumer, event_id) DO UPDATE
         SET envelope = EXCLUDED.envelope, last_error = EXCLUDED.last_error,
             attempts = dead_events.attempts + EXCLUDED.attempts, last_failed_at = now()`,
      [consumer, event.id, String(event.type), JSON.stringify(event), lastError, attempts],
    );
  }

  /** The oldest first. */
  async list(limit: number): Promise<DeadEventRow[]> {
    const { rows } = await this.pool.query<DeadEventRow>(
      `SELECT consumer, event_id, type, envelope, last_error, attempts, first_failed_at, last_failed_at
         FROM dead_events ORDER BY first_failed_at, consumer, event_id LIMIT $1`,
      [limit],
    );
    return rows;
  }

  /** One event (of every consumer that stored it), or all of them when `eventId` is undefined; the oldest first. */
  async chosen(eventId: string | undefined): Promise<Pick<DeadEventRow, 'consumer' | 'event_id' | 'envelope'>[]> {
    const { rows } = await this.pool.query<Pick<DeadEventRow, 'consumer' | 'event_id' | 'envelope'>>(
      `SELECT consumer, event_id, envelope FROM dead_events WHERE $1::text IS NULL OR event_id = $1
        ORDER BY first_failed_at, consumer, event_id`,
      [eventId ?? null],
    );
    return rows;
  }

  /** A replay that failed again: its new error, one attempt more. */
  async recordFailure(consumer: string, eventId: string, error: string): Promise<void> {
    await this.pool.query(
      `UPDATE dead_events SET last_error = $3, attempts = attempts + 1, last_failed_at = now() WHERE consumer = $1 AND event_id = $2`,
      [consumer, eventId, error],
    );
  }

  async remove(consumer: string, eventId: string): Promise<void> {
    await this.pool.query('DELETE FROM dead_events WHERE consumer = $1 AND event_id = $2', [consumer, eventId]);
  }

  /** Stored events per consumer (consumers with none are absent). */
  async waitingByConsumer(): Promise<{ consumer: string; n: number }[]> {
    const { rows } = await this.pool.query<{ consumer: string; n: number }>('SELECT consumer, count(*)::int AS n FROM dead_events GROUP BY consumer');
    return rows;
  }
}
