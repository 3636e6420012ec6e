import { ApiVersion, EventEnvelope, EventType, ID_PREFIX } from '@app/contracts';
import { Queryable } from './db';
import { newId } from './ids';
import { currentCarrier } from './log-context';

export interface NewEvent<T> {
  type: EventType;
  workspace_id: string;
  livemode: boolean;
  api_version: ApiVersion;
  object: T;
  previous_attributes?: Record<string, unknown>;
}

export function buildEnvelope<T>(event: NewEvent<T>, now = new Date()): EventEnvelope<T> {
  return {
    id: newId(ID_PREFIX.event, now.getTime()),
    object: 'event',
    type: event.type,
    api_version: event.api_version,
    created: now.toISOString(),
    workspace_id: event.workspace_id,
    livemode: event.livemode,
    data: event.previous_attributes
      ? { object: event.object, previous_attributes: event.previous_attributes }
      : { object: event.object },
  };
}

/**
 * Records an event in the outbox. Call it with the client of the transaction that makes the
 * change, so the event exists if and only if the change does; the relay publishes it. The trace
 * and request the change was made under go beside the envelope (`trace_context`), never in it:
 * the relay sends them as the message's headers, and consumers continue the trace.
 */
export async function recordEvent<T>(tx: Queryable, event: NewEvent<T>): Promise<EventEnvelope<T>> {
  const envelope = buildEnvelope(event);
  const carrier = currentCarrier();
  // One statement, prepared once per connection: the row and the NOTIFY that wakes the relays
  // (pg_notify is NOTIFY's function form, sent at commit and dropped with a rollback like it).
  await tx.query({
    name: 'record-event',
    text: `WITH recorded AS (INSERT INTO outbox (id, type, envelope, trace_context) VALUES ($1, $2, $3, $4)) SELECT pg_notify('outbox', '')`,
    values: [envelope.id, envelope.type, JSON.stringify(envelope), carrier ? JSON.stringify(carrier) : null],
  });
  return envelope;
}

