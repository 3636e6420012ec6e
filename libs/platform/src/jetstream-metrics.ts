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
  const field = { pending: 'num_pending', ack_pending: 'num_ack_pending', redelivered: 'num_redelivered' } as const;
  const what = { pending: 'Messages in the stream not yet delivered', ack_pending: 'Messages delivered and not yet acknowledged', redelivered: 'Messages delivered more than once and not yet acknowledged' };
  for (const name of Object.keys(field) as (keyof typeof field)[]) {
    gauge(`jetstream_consumer_${name}_messages`, `${what[name]} ${help}`, ['consumer'], async function collect() {
      for (const [consumer, info] of await consumerInfos(nc)) this.set({ consumer }, info[field[name]]);
    });
  }
}

type Info = Awaited<ReturnType<JetStreamManager['consumers']['info']>>;
let scrape: { at: number; infos: Promise<Map<string, Info>> } | undefined;

/** One consumer info request per durable per scrape, shared by the three gauges (their collects run together). */
function consumerInfos(nc: NatsConnection): Promise<Map<string, Info>> {
  if (scrape && performance.now() - scrape.at < 1000) return scrape.infos;
  const infos = (async () => {
    manager ??= jetstreamManager(nc);
    const jsm = await manager.catch(() => {
      manager = undefined; // asked again at the next scrape
      return undefined;
    });
    const found = new Map<string, Info>();
    if (!jsm) return found;
    await Promise.all([...observed].map(async (name) => {
      const info = await jsm.consumers.info(EVENTS_STREAM, name).catch(() => undefined);
      if (info) found.set(name, info); // NATS unreachable: the last values stand
    }));
    return found;
  })();
  scrape = { at: performance.now(), infos };
  return infos;
}
