import { ClientNats, NatsOptions, ReadPacket, WritePacket } from '@nestjs/microservices';
import { Msg, NatsConnection } from '@nats-io/transport-node';
import { coalesceWrites } from './nats';
import { ReplyMux } from './reply-mux';

type Callback = (packet: WritePacket) => void;

/**
 * Nest's NATS client (its connection, serializer and deserializer), with each request sent
 * through a ReplyMux: one shared reply subscription instead of a SUB and UNSUB per request,
 * NATS's own "no responders" answer when no replica serves the subject, and a deadline on every
 * request. `request` is the promise form the gateway uses (no observable per request);
 * `send` (ClientProxy's observable) goes through the same multiplexer.
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

  /**
   * Sends `packet` as Nest's request packet and resolves with the handler's response; rejects
   * with the handler's error payload (a domain error) or a transport error (timeout, no
   * responders, closed connection).
   */
  async request<T>(pattern: string, data: unknown): Promise<T> {
    const mux = this.replyMux() ?? (await this.connect(), this.replyMux());
    if (!mux) throw new Error('NATS connection is not open');
    const packet = this.assignPacketId({ pattern, data });
    const serialized = this.serializer.serialize(packet) as { data: Uint8Array | string; headers?: unknown };
    const reply = await mux.request(pattern, serialized.data, this.timeoutMs, this.mergeHeaders(serialized.headers as never) as never);
    const { err, response } = await this.decode(reply);
    if (err !== undefined && err !== null) throw err;
    return response as T;
  }

  protected publish(partialPacket: ReadPacket, callback: Callback): () => void {
    try {
      const mux = this.replyMux();
      if (!mux) throw new Error('NATS connection is not open');
      const packet = this.assignPacketId(partialPacket);
      const serialized = this.serializer.serialize(packet) as { data: Uint8Array | string; headers?: unknown };
      mux
        .request(this.normalizePattern(partialPacket.pattern), serialized.data, this.timeoutMs, this.mergeHeaders(serialized.headers as never) as never)
        .then(async (reply) => {
          const { err, response } = await this.decode(reply);
          callback({ err, response, isDisposed: true });
        })
        .catch((err: unknown) => callback({ err, isDisposed: true }));
    } catch (err) {
      callback({ err, isDisposed: true });
    }
    return () => undefined;
  }

  private async decode(reply: Msg): Promise<WritePacket> {
    if (reply.data.length === 0) return { err: new Error('empty reply') };
    return (await this.deserializer.deserialize(reply)) as WritePacket;
  }

  /** The multiplexer of the current connection (a new connection after close/connect gets a new one). */
  private replyMux(): ReplyMux | undefined {
    const nc = this.natsClient as unknown as NatsConnection | null;
    return nc ? ReplyMux.of(nc) : undefined;
  }
}
