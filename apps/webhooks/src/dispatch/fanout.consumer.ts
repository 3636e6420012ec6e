import { EventEnvelope, PUBLIC_EVENT_TYPES, PublicEventType } from '@app/contracts';
import { BatchEventHandler, DurableConsumer, newId, randomToken, ReceivedEvent, TraceCarrier, UnitOfWork } from '@app/platform';
import { EventsService } from '../events/events.service';
import { Claimed, DeliveriesRepository, NewDelivery } from './deliveries.repository';
import { Dispatcher } from './dispatcher';
import { renderEvent } from './render';

export const DELIVERY_ID_PREFIX = 'whd_';
export const FANOUT_DURABLE = 'webhooks-dispatcher';

/** Whether an event is public (the others, and malformed ones, can never be delivered). */
function isPublicEvent(event: EventEnvelope): boolean {
  return PUBLIC_EVENT_TYPES.includes(event?.type as PublicEventType) && typeof event.id === 'string' && typeof event.workspace_id === 'string';
}

/**
 * The dispatcher's durable consumer of every public event type, in the platform's batch mode
 * (event-consumer.ts): events waiting together are handled in one transaction, two such
 * transactions at once, and a batch that fails is tried again event by event, so a poison event
 * goes to the dead-letter store alone. Each event becomes one delivery row per enabled endpoint
 * of its workspace subscribed to the type (or `*`), live and test events alike (the envelope's
 * `livemode` tells them apart), in the transaction that records the event as processed: a
 * redelivered event adds nothing, and an event is acknowledged only after its rows are committed,
 * so a crash loses none. The same transaction stores each event once for GET /events
 * (EventsService), whether or not any endpoint receives it; once committed, the events are
 * announced to the operator's listeners.
 *
 * Deliveries this process has room to send now (the dispatcher's global and per-endpoint limits)
 * are inserted already claimed by it (lease and token, as a claim would set them) and sent as
 * soon as the transaction commits, without a NOTIFY and a claim query in between; the others
 * are inserted unclaimed and the NOTIFY wakes the senders of every replica. A process that dies
 * with claims in hand leaves leases that lapse, and the attempts are made by whoever claims next.
 */
@DurableConsumer({
  durable: FANOUT_DURABLE,
  accepts: isPublicEvent,
  batch: {
    // batches form only when events queue up
    maxEvents: 500,
    // the next batch is read and written while the one before waits for its commit (WAL flush)
    workers: 2,
    prefetch: 2000,
    // a batch commits well within it
    ackWaitMs: 10_000,
    maxAckPending: 20_000,
  },
})
export class FanoutConsumer implements BatchEventHandler {
  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly dispatcher: Dispatcher,
    private readonly uow: UnitOfWork,
    private readonly events: EventsService,
  ) {}

  /**
   * Delivery rows for public events, in one transaction that records them as processed. A
   * replayed dead event comes without the trace it was published in.
   */
  async handleBatch(batch: ReceivedEvent[]): Promise<void> {
    const events = new Map(batch.map(({ event }) => [event.id, event]));
    // each delivery keeps the trace and request id its event was published under, for its attempts
    const carriers = new Map<string, TraceCarrier>();
    for (const { event, carrier } of batch) {
      if (carrier) carriers.set(event.id, carrier);
    }
    // one order for every batch: two batches holding a redelivered event each wait, never deadlock
    const sortedIds = [...events.keys()].sort();
    const reserved: Claimed[] = [];
    let stored: EventEnvelope[] = [];
    try {
      await this.uow.run(async (tx) => {
        stored = [];
        const fresh = await this.deliveries.markProcessed(tx, FANOUT_DURABLE, sortedIds);
        if (fresh.length === 0) return;
        const todo = fresh.map((id) => events.get(id)!);
        await this.events.store(tx, todo);
        stored = todo;
        const endpoints = await this.deliveries.enabledEndpointsOf(tx, [...new Set(todo.map((e) => e.workspace_id))]);
        if (endpoints.length === 0) return;
        const token = randomToken(16);
        const rows: NewDelivery[] = [];
        const mine = new Map<string, Claimed>();
        for (const event of todo) {
          const rendered = new Map<string, string>();
          for (const e of endpoints) {
            if (e.workspace_id !== event.workspace_id) continue;
            if (!e.events.includes('*') && !e.events.includes(event.type)) continue;
            if (!rendered.has(e.api_version)) rendered.set(e.api_version, renderEvent(event, e.api_version));
            const id = newId(DELIVERY_ID_PREFIX);
            const body = rendered.get(e.api_version)!;
            const carrier = carriers.get(event.id) ?? null;
            const claimed = this.dispatcher.reserve(e.id);
            rows.push({
              id, endpoint_id: e.id, event_id: event.id, event_type: event.type, event_created: event.created, body,
              claim_token: claimed ? token : null, trace_context: carrier,
            });
            if (claimed) {
              const row: Claimed = { id, endpoint_id: e.id, event_id: event.id, body, attempts: 0, url: e.url, secret_enc: e.secret_enc, previous_secret_enc: e.previous_secret_enc, claim_token: token, trace_context: carrier, max_attempts: null };
              mine.set(id, row);
              reserved.push(row);
            }
          }
        }
        if (rows.length === 0) return;
        const inserted = await this.deliveries.insertDeliveries(tx, rows, this.dispatcher.leaseSeconds);
        // a row not made (it existed already) is not ours to send
        const made = new Set(inserted);
        for (let i = reserved.length - 1; i >= 0; i--) {
          if (made.has(reserved[i].id)) continue;
          this.dispatcher.release(reserved[i].endpoint_id);
          reserved.splice(i, 1);
        }
        if (inserted.some((id) => !mine.has(id))) await this.deliveries.notifyUnclaimed(tx);
      });
    } catch (err) {
      for (const row of reserved) this.dispatcher.release(row.endpoint_id);
      throw err;
    }
    for (const row of reserved) this.dispatcher.launch(row);
    this.events.announce(stored);
  }
}
