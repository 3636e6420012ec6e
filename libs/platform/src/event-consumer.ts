import { Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { nanos, NatsConnection } from '@nats-io/transport-node';
import { Logger } from 'pino';
import { EVENTS_STREAM, EventEnvelope, eventSubject, EventType } from '@app/contracts';
import { DeadLetters, serverMaxDeliver } from './dead-letters';
import { awaitEventsStream } from './jetstream';
import { carrierOfHeaders, continueFrom, TraceCarrier } from './log-context';
import { SpanKind } from './trace-context';
import { markProcessed } from './processed-events.repository';
import { WakeablePause } from './periodic';
import { Tx, UnitOfWork } from './unit-of-work';

export interface ConsumerSpec {
  /** Durable name, also the key under which processed event ids are recorded. */
  durable: string;
  types: EventType[];
  handle: (event: EventEnvelope, tx: Tx) => Promise<void>;
}

/** How a batch consumer reads: what it asks of the server and how many events it handles together. */
export interface BatchSettings {
  /** Events handled together at most; batches form only when events queue up. */
  maxEvents: number;
  /** Batches handled at once, each in its own transaction. */
  workers: number;
  /** Messages the server hands over ahead of their handling. */
  prefetch: number;
  /** Events handed to a process that died come back after this. */
  ackWaitMs: number;
  maxAckPending: number;
}

/** An event as a batch consumer receives it, with the trace and request id it was published under. */
export interface ReceivedEvent {
  event: EventEnvelope;
  /** None for a replayed dead event (it comes without its message). */
  carrier?: TraceCarrier;
}

export interface BatchConsumerSpec {
  durable: string;
  batch: BatchSettings;
  /** Whether an event is for this consumer; the others are acknowledged and skipped. */
  accepts: (event: EventEnvelope) => boolean;
  /**
   * Handles the events all or none. It records their ids as processed in the transaction of its
   * own work (its commit decides what it does next), so a redelivered event adds nothing.
   */
  handleBatch: (events: ReceivedEvent[]) => Promise<void>;
}

/** What `@DurableConsumer` says of its class: one event at a time (`handle`) or in batches (`handleBatch`). */
export type DurableConsumerOptions =
  | Pick<ConsumerSpec, 'durable' | 'types'>
  | Pick<BatchConsumerSpec, 'durable' | 'batch' | 'accepts'>;

/** A `@DurableConsumer({ durable, types })` class. */
export interface EventHandler {
  handle(event: EventEnvelope, tx: Tx): Promise<void>;
}

/** A `@DurableConsumer({ durable, batch, accepts })` class. */
export interface BatchEventHandler {
  handleBatch(events: ReceivedEvent[]): Promise<void>;
}

const durableConsumer = DiscoveryService.createDecorator<DurableConsumerOptions>();

/**
 * Makes an injectable class a durable event consumer: Nest constructs it with its dependencies,
 * and the platform module starts it at bootstrap and stops it at shutdown.
 * `@DurableConsumer({ durable: 'billing', types: [EVENT.workspaceCreated] }) class X implements EventHandler`.
 */
export function DurableConsumer(options: DurableConsumerOptions): ClassDecorator {
  return (target) => {
    Injectable()(target);
    durableConsumer(options)(target);
  };
}

/** The consumer specs of every `@DurableConsumer` provider of the application. */
export function discoverConsumers(discovery: DiscoveryService): (ConsumerSpec | BatchConsumerSpec)[] {
  return discovery.getProviders({ metadataKey: durableConsumer.KEY }).flatMap((wrapper): (ConsumerSpec | BatchConsumerSpec)[] => {
    const options = discovery.getMetadataByDecorator(durableConsumer, wrapper);
    if (!options || !wrapper.instance) return [];
    if ('batch' in options) {
      const handler = wrapper.instance as BatchEventHandler;
      return [{ ...options, handleBatch: (events: ReceivedEvent[]) => handler.handleBatch(events) }];
    }
    const handler = wrapper.instance as EventHandler;
    return [{ ...options, handle: (event: EventEnvelope, tx: Tx) => handler.handle(event, tx) }];
  });
}

interface DurableConfig {
  durable: string;
  filter: string;
  ackWaitMs: number;
  maxAckPending?: number;
  maxDeliver: number;
  prefetch: number;
}

/**
 * The one subject a consumer's durable is filtered to: its event type's when it handles one, else
 * the whole stream (`events.>`), whose other events it acknowledges and skips. One filter subject,
 * not `filter_subjects`: servers before 2.10 (Debian's 2.9) lack the plural, and the create
 * subject a service is granted names its durable's one filter (libs/platform/src/nats-auth.ts).
 */
export function consumerFilter(spec: Pick<ConsumerSpec, 'types'> | Pick<BatchConsumerSpec, 'batch'>): string {
  return 'types' in spec && spec.types.length === 1 ? eventSubject(spec.types[0]) : eventSubject('>');
}

/**
 * Waits for the stream (the operator provisions it), creates the durable on the server (or brings
 * an existing one to `config`) and starts reading it.
 */
async function consumeDurable(nc: NatsConnection, config: DurableConfig, log: Logger): Promise<ConsumerMessages> {
  await awaitEventsStream(nc, log);
  const jsm = await jetstreamManager(nc);
  const settings = {
    filter_subject: config.filter,
    ack_wait: nanos(config.ackWaitMs),
    max_deliver: config.maxDeliver,
    ...(config.maxAckPending === undefined ? {} : { max_ack_pending: config.maxAckPending }),
  };
  try {
    await jsm.consumers.info(EVENTS_STREAM, config.durable);
    await jsm.consumers.update(EVENTS_STREAM, config.durable, settings);
  } catch {
    await jsm.consumers
      .add(EVENTS_STREAM, { durable_name: config.durable, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ...settings })
      .catch(async (err) => {
        await jsm.consumers.info(EVENTS_STREAM, config.durable).catch(() => {
          throw err;
        });
      });
  }
  const consumer = await jetstream(nc).consumers.get(EVENTS_STREAM, config.durable);
  return consumer.consume({ max_messages: config.prefetch });
}

/** The first pause before a durable whose reading stopped is read again; it doubles up to REREAD_MAX_PAUSE_MS while opening it fails. */
export const REREAD_FIRST_PAUSE_MS = 200;
export const REREAD_MAX_PAUSE_MS = 5000;

/**
 * Reads a durable for as long as its consumer runs. nats.js ends a consumer's messages, with an
 * error or without one, on what it counts as terminal (a refused subscription, a 400 or some 409s
 * of the server, the connection closed), and the handling of a message can fail outside the
 * handler's own catch (a nak on a connection that closed). Either way the reading is logged and
 * opened again after a pause, rather than left to end silently (events no longer handled) or to
 * reject with nobody waiting (Node ends the process on an unhandled rejection: a service gone, its
 * requests unanswered, until something restarts it). Messages handed out and not acknowledged
 * come back after their ack wait; processed ids make a second handling a no-op.
 */
export class DurableReader {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private stopping = false;
  private readonly pause = new WakeablePause();

  constructor(
    private readonly durable: string,
    /** Opens the durable's messages (consumeDurable). */
    private readonly open: () => Promise<ConsumerMessages>,
    /** Reads them until they end (resolves) or the reading fails (rejects). */
    private readonly read: (messages: ConsumerMessages) => Promise<void>,
    private readonly log: Logger,
    /** Whether the connection is closed for good: nothing can be read on it any more, so nothing is reopened. */
    private readonly closedForGood: () => boolean = () => false,
  ) {}

  /** Opens the durable (its failure is the caller's) and reads it from then on. */
  async start(): Promise<void> {
    this.messages = await this.open();
    this.loop = this.keepReading(this.messages);
  }

  /** Stops reading: no reopening from then on; resolves when the reading has ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.pause.wake();
    await this.messages?.close();
    await this.loop;
  }

  private async keepReading(first: ConsumerMessages): Promise<void> {
    let messages: ConsumerMessages | undefined = first;
    let pauseMs = REREAD_FIRST_PAUSE_MS;
    for (;;) {
      if (messages) {
        let reason = 'the server ended the messages';
        try {
          await this.read(messages);
        } catch (err) {
          reason = (err as Error).message;
        }
        if (this.stopping || this.endedForGood(reason)) return;
        // an iterator left open after its reader failed would go on pulling beside the new one
        await Promise.resolve(messages.close()).catch(() => undefined);
        this.log.error({ consumer: this.durable, err: reason, retry_in_ms: pauseMs }, 'event consumer: reading the durable stopped; reading it again');
      }
      if (this.stopping) return;
      await this.pause.wait(pauseMs);
      if (this.stopping) return;
      try {
        messages = await this.open();
        this.messages = messages;
        if (this.stopping) {
          await messages.close();
          return;
        }
        pauseMs = REREAD_FIRST_PAUSE_MS;
        this.log.info({ consumer: this.durable }, 'event consumer: reading the durable again');
      } catch (err) {
        messages = undefined;
        if (this.endedForGood((err as Error).message)) return;
        pauseMs = Math.min(pauseMs * 2, REREAD_MAX_PAUSE_MS);
        this.log.warn({ consumer: this.durable, err: (err as Error).message, retry_in_ms: pauseMs }, 'event consumer: opening the durable failed; trying again');
      }
    }
  }

  /** Whether the connection is closed for good (nothing can be read on it any more), said once when it is. */
  private endedForGood(reason: string): boolean {
    if (!this.closedForGood()) return false;
    this.log.error({ consumer: this.durable, err: reason }, 'event consumer: its NATS connection closed for good; the durable is no longer read');
    return true;
  }
}

/** The reader of a consumer's durable on `nc`: opened as `config` says (consumeDurable), read by `read`, never reopened on a closed connection. */
function durableReader(nc: NatsConnection, config: DurableConfig, log: Logger, read: (messages: ConsumerMessages) => Promise<void>): DurableReader {
  return new DurableReader(config.durable, () => consumeDurable(nc, config, log), read, log, () => nc.isClosed());
}

/**
 * A durable pull consumer with explicit ack. Each event is handled in a database transaction
 * that also records its id, so a redelivered event is acknowledged without being handled twice;
 * a failed event comes back after the backoff's delay while the events behind it go on, and after
 * its last delivery it goes to the service's dead-letter store (dead-letters.ts).
 */
export class EventConsumer {
  private reader?: DurableReader;

  constructor(
    private readonly nc: NatsConnection,
    private readonly uow: UnitOfWork,
    private readonly spec: ConsumerSpec,
    private readonly log: Logger,
    private readonly deadLetters: DeadLetters,
  ) {
    deadLetters.register(spec.durable, (event) => this.apply(event));
  }

  async start(): Promise<void> {
    const config = {
      durable: this.spec.durable, filter: consumerFilter(this.spec), ackWaitMs: 30_000, maxDeliver: serverMaxDeliver(this.deadLetters.settings), prefetch: 64,
    };
    this.reader = durableReader(this.nc, config, this.log, (messages) => this.run(messages));
    await this.reader.start();
  }

  async stop(): Promise<void> {
    await this.reader?.stop();
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    for await (const message of messages) {
      let event: EventEnvelope;
      try {
        event = message.json<EventEnvelope>();
      } catch {
        this.log.error({ subject: message.subject }, 'event consumer: undecodable message dropped');
        message.term();
        continue;
      }
      if (!this.spec.types.includes(event.type)) {
        message.ack();
        continue;
      }
      if (await this.deadLetters.overLimit(message, event, this.spec.durable)) continue;
      // the event is handled in the trace, and under the request id, of the change that caused it
      await continueFrom(carrierOfHeaders(message.headers), `consume ${event.type}`, SpanKind.CONSUMER, { 'messaging.consumer.group.name': this.spec.durable }, async () => {
        try {
          await this.apply(event);
          message.ack();
        } catch (err) {
          await this.deadLetters.failed(message, event, this.spec.durable, err);
        }
      });
    }
  }

  private async apply(event: EventEnvelope): Promise<void> {
    await this.uow.run(async (tx) => {
      if (await markProcessed(tx, this.spec.durable, event.id)) await this.spec.handle(event, tx);
    });
  }
}

/**
 * A durable consumer that handles the events waiting together in one go (one transaction, one
 * commit for many: what lets the webhook fan-out keep up with thousands of events a second),
 * `workers` batches at once, as that many replicas' would. Its one filter subject is the whole
 * stream (`events.>`); events it does not accept are acknowledged and skipped. A batch that fails
 * is tried again event by event, so one poison event waits for its retry (and after the last one
 * goes to the dead-letter store, as with every durable consumer) without holding back the events
 * it was batched with.
 */
export class BatchEventConsumer {
  private reader?: DurableReader;
  private readonly queue: JsMsg[] = [];
  private readonly waiting = new Set<() => void>();
  private workers: Promise<void>[] = [];
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly spec: BatchConsumerSpec,
    private readonly log: Logger,
    private readonly deadLetters: DeadLetters,
  ) {
    deadLetters.register(spec.durable, (event) => spec.handleBatch([{ event }]));
  }

  async start(): Promise<void> {
    const { durable, batch } = this.spec;
    const config = {
      durable, filter: consumerFilter(this.spec), ackWaitMs: batch.ackWaitMs, maxAckPending: batch.maxAckPending,
      maxDeliver: serverMaxDeliver(this.deadLetters.settings), prefetch: batch.prefetch,
    };
    this.reader = durableReader(this.nc, config, this.log, async (messages) => {
      for await (const message of messages) {
        this.queue.push(message);
        this.wakeAll();
      }
    });
    await this.reader.start();
    for (let i = 0; i < batch.workers; i++) this.workers.push(this.work());
  }

  async stop(): Promise<void> {
    await this.reader?.stop();
    this.closed = true;
    this.wakeAll();
    await Promise.all(this.workers);
  }

  private wakeAll(): void {
    for (const resolve of this.waiting) resolve();
    this.waiting.clear();
  }

  /** The event a message carries if this consumer accepts it, or undefined (undecodable, or not for it). */
  private accepted(message: JsMsg): EventEnvelope | undefined {
    let event: EventEnvelope;
    try {
      event = message.json<EventEnvelope>();
    } catch {
      return undefined;
    }
    return this.spec.accepts(event) ? event : undefined;
  }

  private async work(): Promise<void> {
    for (;;) {
      if (this.queue.length === 0) {
        if (this.closed) return;
        await new Promise<void>((resolve) => this.waiting.add(resolve));
        continue;
      }
      const batch = this.queue.splice(0, this.spec.batch.maxEvents);
      const due: { message: JsMsg; event: EventEnvelope }[] = [];
      for (const message of batch) {
        const event = this.accepted(message);
        if (!event) {
          message.ack(); // it can never be handled
          continue;
        }
        if (await this.deadLetters.overLimit(message, event, this.spec.durable)) continue;
        due.push({ message, event });
      }
      if (due.length === 0) continue;
      try {
        await this.spec.handleBatch(due.map(received));
        for (const d of due) d.message.ack();
      } catch (err) {
        await this.oneByOne(due, err);
      }
    }
  }

  /** After a batch failed: each event alone, so only the failing ones wait for a retry. */
  private async oneByOne(due: { message: JsMsg; event: EventEnvelope }[], batchErr: unknown): Promise<void> {
    const { durable } = this.spec;
    if (due.length === 1) {
      await this.deadLetters.failed(due[0].message, due[0].event, durable, batchErr);
      return;
    }
    this.log.warn({ err: (batchErr as Error).message, events: due.length, consumer: durable }, 'event consumer: batch failed, trying its events one by one');
    for (const d of due) {
      try {
        await this.spec.handleBatch([received(d)]);
        d.message.ack();
      } catch (err) {
        await this.deadLetters.failed(d.message, d.event, durable, err);
      }
    }
  }
}

function received({ message, event }: { message: JsMsg; event: EventEnvelope }): ReceivedEvent {
  const carrier = carrierOfHeaders(message.headers);
  return carrier ? { event, carrier } : { event };
}
