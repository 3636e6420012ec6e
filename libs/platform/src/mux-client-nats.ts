import { ClientNats, NatsOptions, ReadPacket, WritePacket } from '@nestjs/microservices';
import { Msg, NatsConnection } from '@nats-io/transport-node';
import { coalesceWrites, NATS_CONNECTION_DEFAULTS } from './nats';
import { RAW_JSON_HEADER, RAW_JSON_MARK, RawJson, ReplyMux } from './reply-mux';

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
    super({ ...NATS_CONNECTION_DEFAULTS, ...(options ?? {}) } as NonNullable<NatsOptions['options']>);
  }

  async createClient(): Promise<Awaited<ReturnType<ClientNats['createClient']>>> {
    const nc = await super.createClient();
    coalesceWrites(nc as unknown as NatsConnection);
    return nc;
  }

  /**
   * Sends `data` as Nest's request packet and resolves with the handler's response; rejects
   * with the handler's error payload (a domain error) or a transport error (timeout, no
   * responders, closed connection).
   */
  async request<T>(pattern: string, data: unknown): Promise<T> {
    const reply = await this.exchange(pattern, data, false);
    return reply instanceof RawJson ? reply.parse() as T : reply as T;
  }

  /** As `request`, but a successful reply comes as the service's JSON bytes, unparsed (RawJson). */
  requestRaw<T>(pattern: string, data: unknown): Promise<RawJson<T> | T> {
    return this.exchange(pattern, data, true) as Promise<RawJson<T> | T>;
  }

  private async exchange(pattern: string, data: unknown, raw: boolean): Promise<unknown> {
    const mux = this.replyMux() ?? (await this.connect(), this.replyMux());
    if (!mux) throw new Error('NATS connection is not open');
    const packet = this.assignPacketId({ pattern, data });
    const serialized = this.serializer.serialize(packet) as { data: Uint8Array | string; headers?: unknown };
    const headers = this.mergeHeaders(serialized.headers as never) as { set(key: string, value: string): void } | undefined;
    if (raw && headers) headers.set(RAW_JSON_HEADER, 'json');
    const reply = await mux.request(pattern, serialized.data, this.timeoutMs, headers as never);
    if (reply.data[0] === RAW_JSON_MARK) return new RawJson(reply.data.subarray(1));
    const { err, response } = await this.decode(reply);
    if (err !== undefined && err !== null) throw err;
    return response;
  }

  protected publish(partialPacket: ReadPacket, callback: Callback): () => void {
    this.exchange(this.normalizePattern(partialPacket.pattern), partialPacket.data, false).then(
      (response) => callback({ response, isDisposed: true }),
      (err: unknown) => callback({ err, isDisposed: true }),
    );
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
