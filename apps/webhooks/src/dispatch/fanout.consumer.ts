import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AckPolicy, ConsumerMessages, DeliverPolicy, jetstream, jetstreamManager, JsMsg } from '@nats-io/jetstream';
import { nanos, NatsConnection } from '@nats-io/transport-node';
import { EVENTS_STREAM, EventEnvelope, eventSubject, PUBLIC_EVENT_TYPES, PublicEventType } from '@app/contracts';
import {
  carrierOfHeaders, DEAD_LETTERS, DeadLetters, ensureEventsStream, NATS_CONNECTION, newId, observeConsumer, randomToken, rootLogger, serverMaxDeliver,
  TraceCarrier, withTransaction,
} from '@app/platform';
import { Claimed, DeliveriesRepository, NewDelivery } from './deliveries.repository';
import { Dispatcher } from './dispatcher';
import { renderEvent } from './render';

export const DELIVERY_ID_PREFIX = 'whd_';
export const FANOUT_DURABLE = 'webhooks-dispatcher';
/** Events handled in one transaction at most; batches form only when events queue up. */
const MAX_BATCH = 500;
/**
 * Batches in their transactions at once: the next batch is read and written while the one before
 * waits for its commit (WAL flush), instead of queueing behind it.
 */
const WORKERS = 2;
/** Events handed to a process that died come back after this (a batch commits well within it). */
const ACK_WAIT_MS = 10_000;

interface Delivery {
  message: JsMsg;
  event: EventEnvelope;
}

/** The public event a message carries, or undefined (undecodable, or not for webhooks). */
function publicEvent(message: JsMsg): EventEnvelope | undefined {
  let event: EventEnvelope;
  try {
    event = message.json<EventEnvelope>();
  } catch {
    return undefined;
  }
  const ok = PUBLIC_EVENT_TYPES.includes(event?.type as PublicEventType) && typeof event.id === 'string' && typeof event.workspace_id === 'string';
  return ok ? event : undefined;
}

/**
 * The dispatcher's durable consumer of every public event type (one filter subject `events.>`:
 * nats-server 2.9 has no plural filters; other types are acknowledged and skipped). Each event
 * becomes one delivery row per enabled endpoint of its workspace subscribed to the type (or `*`),
 * live and test events alike (the envelope's `livemode` tells them apart), in the transaction
 * that records the event as processed: a redelivered event adds nothing, and an event is
 * acknowledged only after its rows are committed, so a crash loses none. Events waiting together are handled in one transaction (one commit for many), which is
 * what lets the consumer keep up with thousands of events a second; two such transactions run at
 * once, as two replicas' would. A batch that fails is tried again event by event, so one poison
 * event waits for its retry (and after the last one goes to the dead-letter store, as with every
 * durable consumer: dead-letters.ts) without holding back the events it was batched with.
 *
 * Deliveries this process has room to send now (the dispatcher's global and per-endpoint limits)
 * are inserted already claimed by it (lease and token, as a claim would set them) and sent as
 * soon as the transaction commits, without a NOTIFY and a claim query in between; the others
 * are inserted unclaimed and the NOTIFY wakes the senders of every replica. A process that dies
 * with claims in hand leaves leases that lapse, and the attempts are made by whoever claims next.
 */
@Injectable()
export class FanoutConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = rootLogger('webhooks');
  private messages?: ConsumerMessages;
  private readonly queue: JsMsg[] = [];
  private readonly waiting = new Set<() => void>();
  private reader?: Promise<void>;
  private workers: Promise<void>[] = [];
  private closed = false;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly deliveries: DeliveriesRepository,
    private readonly dispatcher: Dispatcher,
    @Inject(DEAD_LETTERS) private readonly deadLetters: DeadLetters,
  ) {
    deadLetters.register(FANOUT_DURABLE, (event) => this.handle([{ event }]));
  }

  async onApplicationBootstrap(): Promise<void> {
    await ensureEventsStream(this.nc);
    const jsm = await jetstreamManager(this.nc);
    const config = {
      durable_name: FANOUT_DURABLE,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(ACK_WAIT_MS),
      max_ack_pending: 20_000,
      max_deliver: serverMaxDeliver(this.deadLetters.settings),
      filter_subject: eventSubject('>'),
    };
    try {
      await jsm.consumers.info(EVENTS_STREAM, FANOUT_DURABLE);
      await jsm.consumers.update(EVENTS_STREAM, FANOUT_DURABLE, {
        ack_wait: config.ack_wait, max_ack_pending: config.max_ack_pending, max_deliver: config.max_deliver,
      });
    } catch {
      await jsm.consumers.add(EVENTS_STREAM, config).catch(async (err) => {
        await jsm.consumers.info(EVENTS_STREAM, FANOUT_DURABLE).catch(() => {
          throw err;
        });
      });
    }
    observeConsumer(this.nc, FANOUT_DURABLE);
    const consumer = await jetstream(this.nc).consumers.get(EVENTS_STREAM, FANOUT_DURABLE);
    this.messages = await consumer.consume({ max_messages: 2000 });
    const messages = this.messages;
    this.reader = (async () => {
      for await (const message of messages) {
        this.queue.push(message);
        this.wakeAll();
      }
      this.closed = true;
      this.wakeAll();
    })();
    for (let i = 0; i < WORKERS; i++) this.workers.push(this.work());
  }

  private wakeAll(): void {
    for (const resolve of this.waiting) resolve();
    this.waiting.clear();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.messages?.close();
    await this.reader;
    await Promise.all(this.workers);
  }

  private async work(): Promise<void> {
    for (;;) {
      if (this.queue.length === 0) {
        if (this.closed) return;
        await new Promise<void>((resolve) => this.waiting.add(resolve));
        continue;
      }
      const batch = this.queue.splice(0, MAX_BATCH);
      const due: Delivery[] = [];
      for (const message of batch) {
        const event = publicEvent(message);
        if (!event) {
          message.ack(); // it can never be delivered
          continue;
        }
        if (await this.deadLetters.overLimit(message, event, FANOUT_DURABLE)) continue;
        due.push({ message, event });
      }
      if (due.length === 0) continue;
      try {
        await this.handle(due);
        for (const d of due) d.message.ack();
      } catch (err) {
        await this.oneByOne(due, err);
      }
    }
  }

  /** After a batch failed: each event alone, so only the failing ones wait for a retry. */
  private async oneByOne(due: Delivery[], batchErr: unknown): Promise<void> {
    if (due.length === 1) {
      await this.deadLetters.failed(due[0].message, due[0].event, FANOUT_DURABLE, batchErr);
      return;
    }
    this.log.warn({ err: (batchErr as Error).message, events: due.length }, 'webhooks: fan-out batch failed, trying its events one by one');
    for (const { message, event } of due) {
      try {
        await this.handle([{ message, event }]);
        message.ack();
      } catch (err) {
        await this.deadLetters.failed(message, event, FANOUT_DURABLE, err);
      }
    }
  }

  /**
   * Delivery rows for public events, in one transaction that records them as processed. A
   * replayed dead event comes without its message (and so without the trace it was published in).
   */
  private async handle(batch: { event: EventEnvelope; message?: JsMsg }[]): Promise<void> {
    const events = new Map(batch.map(({ event }) => [event.id, event]));
    // each delivery keeps the trace and request id its event was published under, for its attempts
    const carriers = new Map<string, TraceCarrier>();
    for (const { message, event } of batch) {
      const carrier = message && carrierOfHeaders(message.headers);
      if (carrier) carriers.set(event.id, carrier);
    }
    // one order for every batch: two batches holding a redelivered event each wait, never deadlock
    const sortedIds = [...events.keys()].sort();
    const reserved: Claimed[] = [];
    try {
      await withTransaction(this.deliveries.pool, async (tx) => {
        const fresh = await this.deliveries.markProcessed(tx, FANOUT_DURABLE, sortedIds);
        if (fresh.length === 0) return;
        const todo = fresh.map((id) => events.get(id)!);
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
              const row: Claimed = { id, endpoint_id: e.id, event_id: event.id, body, attempts: 0, url: e.url, secret_enc: e.secret_enc, claim_token: token, trace_context: carrier };
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
  }
}
