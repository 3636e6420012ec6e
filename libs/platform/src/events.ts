import { randomBytes } from 'node:crypto';
import { ApiVersion, EventEnvelope, EventType, ID_PREFIX } from '@app/contracts';
import { Queryable } from './db';
import { newId } from './ids';
import { appendToOutbox, traceContextJson } from './outbox.repository';
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

/**
 * Whether a relay runs in this process: a statement that appends an event outside a unit of work
 * then wakes it by eventsCommitted once it returns, instead of sending a NOTIFY.
 */
export function relayInProcess(): boolean {
  return localRelays.size > 0;
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

/** A token of this process that no value of an event can hold by chance (128 random bits). */
const MARKER_TOKEN = randomBytes(16).toString('hex');

/**
 * An outbox row for the statement that writes the event's object (statementEvent): its envelope as
 * JSON text in which some fields of `data.object` are markers, each to be replaced by the
 * statement with the JSON text of what PostgreSQL assigned the field.
 */
export interface StatementEvent {
  id: string;
  type: EventType;
  /** The envelope's JSON text, each of `markers` in it once in place of its field's value. */
  envelope: string;
  /** The trace it was recorded under, as JSON text (outbox `trace_context`), or null. */
  traceContext: string | null;
  /** Per field: the JSON text that stands for its value in `envelope`. */
  markers: Record<string, string>;
}

/**
 * The outbox row of an event whose object is written by the same statement as the row: a create
 * in one statement, committed on its own, instead of a transaction's four round trips. The
 * envelope is the one recordEvent would write, byte for byte, once the statement has replaced
 * every marker (`fields` of `event.object`: values only PostgreSQL knows, such as a column's
 * default or a row read in the statement) with the JSON text JSON.stringify gives the value. A
 * marker is a JSON string carrying MARKER_TOKEN, which no value of the object can hold.
 * The statement wakes no relay: when it committed, call eventsCommitted (relayInProcess), or
 * append with NOTIFY.
 */
export function statementEvent<T extends object>(event: NewEvent<T>, fields: readonly (keyof T & string)[]): StatementEvent {
  const object: Record<string, unknown> = { ...(event.object as Record<string, unknown>) };
  const markers: Record<string, string> = {};
  for (const field of fields) {
    object[field] = `${MARKER_TOKEN}:${field}`;
    markers[field] = JSON.stringify(object[field]);
  }
  const envelope = buildEnvelope({ ...event, object });
  return { id: envelope.id, type: envelope.type, envelope: JSON.stringify(envelope), traceContext: traceContextJson(currentCarrier()), markers };
}
