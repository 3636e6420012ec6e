import { ConnectionOptions, Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { CustomTransportStrategy, MessageHandler, NatsContext, Server, WritePacket } from '@nestjs/microservices';
import { isObservable, Observable } from 'rxjs';
import { retryPolicyOf, RpcRequest } from '@app/contracts';
import { rootLogger } from './logger';
import { connectMesh } from './nats';
import { PublishBatch } from './publish-batch';
import { counter, gauge } from './metrics';
import { JsonText, RAW_JSON_HEADER, RAW_JSON_MARK, RPC_DEADLINE_HEADER } from './reply-mux';
import { observeRpc, outcomeOf, RpcObservation } from './rpc-observer';

const RAW_JSON_PREFIX = String.fromCharCode(RAW_JSON_MARK);

const joins = counter('rpc_queue_group_joins_total', 'Times this process joined its queue groups (at start-up after its warm-up; again after its database came back)', []);
const firstJoinedAt = gauge('rpc_queue_groups_first_joined_timestamp_seconds', 'When this process first joined its queue groups (Unix time): after its warm-up', []);

const expired = counter('rpc_expired_total', 'NATS reads dropped unhandled: they reached the handler after their requester stopped waiting (Rpc-Deadline)', ['subject']);

/** What Nest's RPC exception filter answers for a failure that is not an RpcException. */
const INTERNAL_ERROR = { status: 'error', message: 'Internal server error' };

export interface NatsRpcServerOptions {
  /** The nats.js connection of the service's identity (natsConnectOptions: its seed, inbox prefix, TLS). */
  connection: ConnectionOptions;
  /** The queue group of every handler whose @MessagePattern extras name none (the service's name). */
  queue?: string;
  /**
   * `listen` connects without subscribing: the process joins its queue groups when it calls
   * `join` (startService does once the process has warmed up: warm-up.ts). Default: at `listen`.
   */
  joinLater?: boolean;
}

/** Nest's request packet on the wire (ClientNats and askService send it). */
interface RequestPacket {
  id?: string;
  pattern?: unknown;
  data?: unknown;
}

/**
 * The services' request-reply transport: a Nest custom transport strategy (`Server` and
 * `CustomTransportStrategy`, as the nest repository's sample/03-microservices builds one) on
 * nats.js. Each handler Nest registered from @MessagePattern (and so @Rpc) gets one subscription
 * in the service's queue group; a request is handed to that handler, which is Nest's whole
 * pipeline (guards, interceptors, pipes, exception filters), and what it answers is replied in
 * Nest's packet (`{id, response | err, isDisposed}`): a value at once, a stream through
 * `Server.send`. Every request is observed (log line, latency histogram, span: observeRpc), and
 * replies go out through the connection's PublishBatch.
 *
 * The process can leave its queue groups and join them again without closing its connection
 * (`leave`, `join`: a replica whose database does not answer takes no requests meanwhile), and
 * `drain` leaves them for good and waits for the requests it still holds to be answered.
 */
export class NatsRpcServer extends Server implements CustomTransportStrategy {
  private connection?: NatsConnection;
  /** The queue-group subscriptions while the process is in its groups; empty while it is out. */
  private subscriptions: Subscription[] = [];
  /** Requests received and not yet answered. */
  private inFlight = 0;
  private onIdle?: () => void;
  private draining = false;
  private joinedOnce = false;

  constructor(private readonly options: NatsRpcServerOptions) {
    super();
  }

  /**
   * Connects, subscribes to every handled subject (not with `joinLater`) and reports started once
   * nats-server has the subscriptions (a flush answers after them).
   */
  async listen(callback: (err?: unknown) => void): Promise<void> {
    try {
      this.connection = await connectMesh(this.options.connection, rootLogger());
      if (!this.options.joinLater) this.subscribe(this.connection);
      await this.connection.flush();
    } catch (err) {
      return callback(err);
    }
    callback();
  }

  async close(): Promise<void> {
    this.draining = true;
    const nc = this.connection;
    this.connection = undefined;
    if (nc && !nc.isClosed()) await nc.close();
  }

  /** The nats.js connection (for the tests). */
  unwrap<T>(): T {
    return this.connection as T;
  }

  on(): never {
    throw new Error('NatsRpcServer has no events to listen to');
  }

  /**
   * Leaves every queue group: nats-server sends this process no more requests (the other replicas
   * get them, or the caller "no responders" when none is left); requests that reached it before
   * the UNSUB are still handled and answered.
   */
  async leave(): Promise<void> {
    const subscriptions = this.subscriptions.splice(0);
    await Promise.all(subscriptions.map((sub) => (sub.isClosed() ? undefined : sub.drain().catch(() => undefined))));
  }

  /** Joins the queue groups again (not once draining); resolves when nats-server has the subscriptions. */
  async join(): Promise<void> {
    const nc = this.connection;
    if (this.draining || this.subscriptions.length > 0 || !nc || nc.isClosed()) return;
    this.subscribe(nc);
    await nc.flush();
  }

  /**
   * For a graceful stop: leaves the queue groups for good, then waits until every request this
   * process holds is answered (at most `graceMs`) and its replies have reached nats-server. The
   * connection stays open for the replies; the service's own connection, for calls to peers,
   * closes later (PlatformModule). Resolves false when requests were still running at the grace.
   */
  async drain(graceMs: number): Promise<boolean> {
    this.draining = true;
    await this.leave();
    const settled =
      this.inFlight === 0 ||
      (await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), graceMs);
        this.onIdle = () => {
          clearTimeout(timer);
          resolve(true);
        };
      }));
    this.onIdle = undefined;
    // replies still in this turn's PublishBatch go out first, then a PING after all of them
    await new Promise((resolve) => setImmediate(resolve));
    await this.connection?.flush().catch(() => undefined);
    return settled;
  }

  private subscribe(nc: NatsConnection): void {
    if (!this.joinedOnce) firstJoinedAt.set(Date.now() / 1000);
    this.joinedOnce = true;
    joins.inc();
    for (const [subject, handler] of this.getHandlers()) {
      const queue = (handler.extras?.queue as string | undefined) ?? this.options.queue;
      this.subscriptions.push(
        nc.subscribe(subject, { queue, callback: (err, msg) => (err ? this.logger.error(err) : this.received(subject, handler, msg)) }),
      );
    }
  }

  private received(subject: string, handler: MessageHandler, msg: Msg): void {
    let packet: RequestPacket;
    try {
      packet = msg.json<RequestPacket>();
    } catch {
      return this.logger.error(`${subject}: a message that is not JSON`);
    }
    // as Nest's NATS deserializer: a message that is not Nest's packet is the data itself
    if (!packet || typeof packet !== 'object' || !('pattern' in packet || 'data' in packet)) packet = { data: packet };
    const context = new NatsContext([msg.subject, msg.headers as never]);
    if (packet.id === undefined || handler.isEventHandler) {
      this.handleEvent(subject, { pattern: subject, data: packet.data }, context).catch((err: unknown) => this.handleError(err as string));
      return;
    }
    // a read whose requester stopped waiting while it queued (a saturated process): nobody reads
    // the answer, so it is not worked out. A write is still done: its requester may have answered
    // 500, and the retry it promises is answered from what this one records (its Idempotency-Key,
    // its ref), as a write the service had begun before the deadline is.
    const deadline = deadlineOf(msg);
    if (deadline !== undefined && Date.now() >= deadline && retryPolicyOf(subject) === 'read') {
      expired.inc({ subject });
      return;
    }
    this.inFlight++;
    const id = packet.id;
    const observed = observeRpc(subject, msg.headers, packet.data as RpcRequest, deadline);
    let result: Promise<unknown>;
    try {
      result = observed.run(() => handler(packet.data, context));
    } catch (err) {
      result = Promise.reject(err);
    }
    result.then(
      (value) => (isObservable(value) ? this.stream(msg, id, value, observed) : this.answer(msg, id, value, observed)),
      // Nest's handler answers its failures itself (exception filters): this is a failure of Nest's own
      (err: unknown) => {
        observed('error', err);
        this.reply(msg, JSON.stringify({ id, err: INTERNAL_ERROR, isDisposed: true }));
        this.settled();
      },
    );
  }

  /**
   * A handler's value: Nest's packet, or the value's JSON after RAW_JSON_MARK when the requester
   * asked for it (RawJson). A value given as JSON text (JsonText) is sent as that text.
   */
  private answer(msg: Msg, id: string, value: unknown, observed: RpcObservation): void {
    try {
      const raw = value !== undefined && msg.headers?.get(RAW_JSON_HEADER) === 'json';
      const text = value instanceof JsonText ? value.json : undefined;
      if (raw) this.reply(msg, RAW_JSON_PREFIX + (text ?? JSON.stringify(value)));
      else this.reply(msg, text !== undefined ? `{"id":${JSON.stringify(id)},"response":${text},"isDisposed":true}` : JSON.stringify({ id, response: value, isDisposed: true }));
      observed('ok');
    } catch (err) {
      observed('error', err);
      this.reply(msg, JSON.stringify({ id, err: INTERNAL_ERROR, isDisposed: true }));
    }
    this.settled();
  }

  /** A stream (what Nest's exception filters answer a failure with, or a handler's observable) through Nest's `Server.send`. */
  private stream(msg: Msg, id: string, value$: Observable<unknown>, observed: RpcObservation): void {
    let first = true;
    this.send(value$, (packet: WritePacket) => {
      if (first && (packet.err !== undefined || packet.isDisposed || packet.response !== undefined)) {
        first = false;
        observed(outcomeOf(packet.err), packet.err);
      }
      this.reply(msg, JSON.stringify({ id, ...packet }));
      if (packet.isDisposed) this.settled();
    });
  }

  private reply(msg: Msg, data: string): void {
    if (!msg.reply || !this.connection) return;
    PublishBatch.of(this.connection).publish(msg.reply, data, undefined, (err) => this.logger.error(`reply to ${msg.subject} not sent: ${err.message}`));
  }

  private settled(): void {
    if (--this.inFlight === 0) this.onIdle?.();
  }
}

/** The request's Rpc-Deadline (epoch ms), when it carries a valid one. */
function deadlineOf(msg: Msg): number | undefined {
  const value = msg.headers?.get(RPC_DEADLINE_HEADER);
  if (!value) return undefined;
  const deadline = Number(value);
  return Number.isFinite(deadline) && deadline > 0 ? deadline : undefined;
}
