import { jetstreamManager, JetStreamManager } from '@nats-io/jetstream';
import { NatsConnection } from '@nats-io/transport-node';
import { EVENTS_STREAM } from '@app/contracts';
import { gauge } from './metrics';

const observed = new Set<string>();
let manager: Promise<JetStreamManager> | undefined;
let connection: NatsConnection | undefined;

/**
 * Lag of this process's durable consumers, read from JetStream's consumer info at each scrape
 * (one small request per durable; a replica reports the durable it shares with the others, so
 * aggregate with max, not sum): messages not yet delivered (`num_pending`), delivered and not
 * acknowledged (`num_ack_pending`) and redelivered (`num_redelivered`). Dead letters are counted
 * where they are written (`events_dead_letter_total`).
 */
export function observeConsumer(nc: NatsConnection, durable: string): void {
  if (connection !== nc) {
    connection = nc;
    manager = undefined;
  }
  observed.add(durable);
  const help = 'of the durable JetStream consumer, read from its consumer info at scrape';
  const pending = gauge('jetstream_consumer_pending_messages', `Messages in the stream not yet delivered ${help}`, ['consumer'], async function collect() {
    manager ??= jetstreamManager(nc);
    const jsm = await manager.catch(() => undefined);
    if (!jsm) return;
    await Promise.all([...observed].map(async (name) => {
      const info = await jsm.consumers.info(EVENTS_STREAM, name).catch(() => undefined);
      if (!info) return; // NATS unreachable: the last values stand
      pending.set({ consumer: name }, info.num_pending);
      ackPending.set({ consumer: name }, info.num_ack_pending);
      redelivered.set({ consumer: name }, info.num_redelivered);
    }));
  });
  const ackPending = gauge('jetstream_consumer_ack_pending_messages', `Messages delivered and not yet acknowledged ${help}`, ['consumer']);
  const redelivered = gauge('jetstream_consumer_redelivered_messages', `Messages delivered more than once and not yet acknowledged ${help}`, ['consumer']);
}
