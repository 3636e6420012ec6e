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
 * The relays running in this process (OutboxRelay.start), each woken by a unit of work of this
 * process that recorded events, once it has committed (UnitOfWork). While there is one, an event
 * recorded in a unit of work sends no NOTIFY: a NOTIFY makes PostgreSQL serialise the commits of
 * every notifying transaction (the notification queue's lock is held through the commit's WAL
 * flush), so concurrent creates could not share one. Relays of other processes find such events at their
 * idle poll, or through an event recorded elsewhere with a NOTIFY.
 */
const localRelays = new Set<() => void>();

/** `wake` on every commit of a unit of work of this process that recorded events; returns the function that stops it. */
export function wakeOnCommittedEvents(wake: () => void): () => void {
  localRelays.add(wake);
  return () => {
    localRelays.delete(wake);
  };
}

/** Set on a unit of work's Tx (UnitOfWork) when an event was recorded in it. */
export const RECORDED_EVENTS = Symbol('recordedEvents');

/** What UnitOfWork calls after committing a transaction that recorded events. */
export function eventsCommitted(): void {
  for (const wake of localRelays) wake();
}

/**
 * Records an event in the outbox. Call it with the client of the transaction that makes the
 * change, so the event exists if and only if the change does; the relay publishes it. The trace
 * and request the change was made under go beside the envelope (`trace_context`), never in it:
 * the relay sends them as the message's headers, and consumers continue the trace.
 *
 * In a unit of work of a process that runs a relay, the relay is woken when the unit of work
 * commits (wakeOnCommittedEvents); elsewhere the append sends a NOTIFY that wakes the relays of
 * every process (appendToOutbox).
 */
export async function recordEvent<T>(tx: Queryable, event: NewEvent<T>): Promise<EventEnvelope<T>> {
  const envelope = buildEnvelope(event);
  const tracked = tx as Queryable & { [RECORDED_EVENTS]?: boolean };
  const wokenAtCommit = RECORDED_EVENTS in tracked && localRelays.size > 0;
  if (wokenAtCommit) tracked[RECORDED_EVENTS] = true;
  await appendToOutbox(tx, envelope, currentCarrier(), !wokenAtCommit);
  return envelope;
}
