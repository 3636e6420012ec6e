import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, ConsumerMessages } from '@nats-io/jetstream';
import { nanos, NatsConnection } from '@nats-io/transport-node';
import { Pool, PoolClient } from 'pg';
import { Logger } from 'pino';
import { EVENTS_STREAM, EventEnvelope, eventSubject, EventType } from '@app/contracts';
import { DeadLetters, serverMaxDeliver } from './dead-letters';
import { withTransaction } from './db';
import { ensureEventsStream } from './jetstream';
import { carrierOfHeaders, continueFrom } from './log-context';
import { SpanKind } from './tracing';

export interface ConsumerSpec {
  /** Durable name, also the key under which processed event ids are recorded. */
  durable: string;
  types: EventType[];
  handle: (event: EventEnvelope, tx: PoolClient) => Promise<void>;
}

/**
 * A durable pull consumer with explicit ack. Each event is handled in a database transaction
 * that also records its id, so a redelivered event is acknowledged without being handled twice;
 * a failed event comes back after the backoff's delay while the events behind it go on, and after
 * its last delivery it goes to the service's dead-letter store (dead-letters.ts).
 */
export class EventConsumer {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;

  constructor(
    private readonly nc: NatsConnection,
    private readonly pool: Pool,
    private readonly spec: ConsumerSpec,
    private readonly log: Logger,
    private readonly deadLetters: DeadLetters,
  ) {
    deadLetters.register(spec.durable, (event) => this.apply(event));
  }

  async start(): Promise<void> {
    await ensureEventsStream(this.nc);
    const jsm = await jetstreamManager(this.nc);
    // One filter subject, not `filter_subjects`: servers before 2.10 (Debian's 2.9) lack the
    // plural. Several types read the whole stream and skip the others here.
    const filter = this.spec.types.length === 1 ? eventSubject(this.spec.types[0]) : eventSubject('>');
    const config = {
      durable_name: this.spec.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(30_000),
      max_deliver: serverMaxDeliver(this.deadLetters.settings),
      filter_subject: filter,
    };
    try {
      await jsm.consumers.info(EVENTS_STREAM, this.spec.durable);
      await jsm.consumers.update(EVENTS_STREAM, this.spec.durable, { filter_subject: filter, max_deliver: config.max_deliver });
    } catch {
      await jsm.consumers.add(EVENTS_STREAM, config).catch(async (err) => {
        await jsm.consumers.info(EVENTS_STREAM, this.spec.durable).catch(() => {
          throw err;
        });
      });
    }
    const consumer = await jetstream(this.nc).consumers.get(EVENTS_STREAM, this.spec.durable);
    this.messages = await consumer.consume({ max_messages: 64 });
    this.loop = this.run(this.messages);
  }

  async stop(): Promise<void> {
    await this.messages?.close();
    await this.loop;
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
    await withTransaction(this.pool, async (tx) => {
      const fresh = await tx.query(
        'INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [this.spec.durable, event.id],
      );
      if (fresh.rowCount === 1) await this.spec.handle(event, tx);
    });
  }
}
