import { ApiVersion, EventEnvelope, EventType, ID_PREFIX } from '@app/contracts';
import { Queryable } from './db';
import { newId } from './ids';
import { appendToOutbox } from './outbox.repository';
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
  await appendToOutbox(tx, envelope, currentCarrier());
  return envelope;
}

