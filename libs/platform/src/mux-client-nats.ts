import { ClientNats, NatsOptions, ReadPacket, WritePacket } from '@nestjs/microservices';
import { NatsConnection } from '@nats-io/transport-node';
import { coalesceWrites } from './nats';

type Callback = (packet: WritePacket) => void;
interface RequestCapable {
  request(subject: string, payload: unknown, options: { timeout: number; headers?: unknown }): Promise<{ data: Uint8Array; json<T>(): T }>;
}

/**
 * Nest's NATS client, but each request goes through the connection's request multiplexer:
 * one shared reply subscription instead of a SUB and UNSUB per request (less work for the
 * client and the server), NATS's own "no responders" answer when no replica serves the
 * subject, and a deadline on every request.
 */
export class MuxClientNats extends ClientNats {
  constructor(
    options: NatsOptions['options'],
    private readonly timeoutMs: number,
  ) {
    super({ noAsyncTraces: true, ...(options ?? {}) } as NonNullable<NatsOptions['options']>);
  }

  async createClient(): Promise<Awaited<ReturnType<ClientNats['createClient']>>> {
    const nc = await super.createClient();
    coalesceWrites(nc as unknown as NatsConnection);
    return nc;
  }

  protected publish(partialPacket: ReadPacket, callback: Callback): () => void {
    try {
      const packet = this.assignPacketId(partialPacket);
      const serialized = this.serializer.serialize(packet) as { data: unknown; headers?: unknown };
      const client = this.natsClient as unknown as RequestCapable;
      client
        .request(this.normalizePattern(partialPacket.pattern), serialized.data, {
          timeout: this.timeoutMs,
          headers: this.mergeHeaders(serialized.headers as never),
        })
        .then(async (message) => {
          if (message.data.length === 0) return callback({ err: new Error('empty reply'), isDisposed: true });
          const { err, response } = await this.deserializer.deserialize(message);
          callback({ err, response, isDisposed: true });
        })
        .catch((err: unknown) => callback({ err, isDisposed: true }));
    } catch (err) {
      callback({ err, isDisposed: true });
    }
    return () => undefined;
  }
}
