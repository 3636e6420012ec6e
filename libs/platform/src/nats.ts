import { connect, NatsConnection, Subscription } from '@nats-io/transport-node';
import { NatsContext, ServerNats, WritePacket } from '@nestjs/microservices';
import { RpcExceptionsHandler } from '@nestjs/microservices/exceptions/rpc-exceptions-handler';
import { ExecutionContextHost } from '@nestjs/core/internal';
import { catchError, isObservable, Observable } from 'rxjs';
import { RpcRequest } from '@app/contracts';
import { NatsConnectSettings, natsConnectOptions } from './nats-auth';
import { observeRpc, outcomeOf } from './rpc-observer';
import { RAW_JSON_HEADER, RAW_JSON_MARK } from './reply-mux';
import type { DirectRoute } from './rpc-routes';

const RAW_JSON_PREFIX = String.fromCharCode(RAW_JSON_MARK);

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> => typeof (value as PromiseLike<unknown> | null)?.then === 'function';

/** Nest's answer when no handler serves a subject (its NO_MESSAGE_HANDLER constant). */
const NO_MESSAGE_HANDLER = 'There is no matching message handler defined in the remote service.';

/**
 * Connection options every NATS connection of the mesh shares: reconnect for ever, every 500 ms,
 * and no Error (stack capture) built per request and per subscription timer — callers wrap
 * failures with their own context.
 */
export const NATS_CONNECTION_DEFAULTS = { maxReconnectAttempts: -1, reconnectTimeWait: 500, noAsyncTraces: true } as const;

/** A connection of one identity (its seed, inbox prefix and TLS from NatsConnectSettings). */
export async function connectNats(settings: NatsConnectSettings, name: string): Promise<NatsConnection> {
  const nc = await connect({ ...NATS_CONNECTION_DEFAULTS, ...natsConnectOptions(settings, name), waitOnFirstConnect: false });
  return coalesceWrites(nc);
}

interface CorkableSocket {
  write(...args: unknown[]): boolean;
  cork(): void;
  uncork(): void;
  __coalesced?: boolean;
}

/**
 * Coalesces a connection's socket writes per event-loop turn: the client flushes its buffer once
 * per microtask, so under load every request handled in its own I/O callback cost one write
 * syscall; corked until `setImmediate`, everything published while this turn's I/O callbacks ran
 * goes out in one `writev`. Adds at most one loop turn of latency. `NATS_COALESCE_WRITES=off`
 * switches it off. Re-applied after a reconnect (a new socket).
 */
export function coalesceWrites(nc: NatsConnection): NatsConnection {
  if (process.env.NATS_COALESCE_WRITES === 'off') return nc;
  const patch = () => {
    const socket = (nc as unknown as { protocol?: { transport?: { socket?: CorkableSocket } } }).protocol?.transport?.socket;
    if (!socket || socket.__coalesced || typeof socket.cork !== 'function') return;
    socket.__coalesced = true;
    const write = socket.write;
    let corked = false;
    socket.write = function (this: CorkableSocket, ...args: unknown[]) {
      if (!corked) {
        corked = true;
        this.cork();
        setImmediate(() => {
          corked = false;
          this.uncork();
        });
      }
      return write.apply(this, args);
    };
  };
  patch();
  void (async () => {
    for await (const status of nc.status()) if (status.type === 'reconnect') patch();
  })().catch(() => undefined);
  return nc;
}

type NatsMessage = Parameters<ServerNats['handleMessage']>[1];
type Handler = NonNullable<ReturnType<ServerNats['getHandlerByPattern']>>;

/**
 * Nest's NATS server (request-reply handlers) on a connection whose writes are coalesced, with
 * every handled request observed (log line, latency histogram, span: see observeRpc) and a short
 * path for the common case: a handler that resolves to a value is answered directly, without
 * the observable pipeline Nest builds per message; a handler that failed (Nest's exception
 * filters answer with an observable error) or returned a stream goes through Nest's own path.
 * Handlers are looked up by subject once, not by parsing the subject as JSON per message.
 *
 * The process can leave its queue groups and join them again without closing its connection
 * (`leave`, `join`: a replica whose database does not answer takes no requests meanwhile), and
 * `drain` leaves them for good and waits for the requests it still holds to be answered.
 */
export class CoalescingServerNats extends ServerNats {
  private readonly routes = new Map<string, Handler | null>();
  /** Handlers called without Nest's pipeline (see directRpcRoutes), by subject. */
  private direct = new Map<string, DirectRoute>();
  /** What Nest's pipeline answers a failed handler with when no filter is declared (the direct routes have none). */
  private readonly exceptions = new RpcExceptionsHandler();
  private connection?: NatsConnection;
  /** The queue-group subscriptions while the process is in its groups; empty while it is out. */
  private queueSubscriptions: Subscription[] = [];
  /** Requests received and not yet answered. */
  private inFlight = 0;
  private onIdle?: () => void;
  private draining = false;
  private readonly defaultQueue?: string;

  constructor(options: ConstructorParameters<typeof ServerNats>[0]) {
    super(options);
    this.defaultQueue = (options as { queue?: string } | undefined)?.queue;
  }

  async createNatsClient(): Promise<Awaited<ReturnType<ServerNats['createNatsClient']>>> {
    const nc = await super.createNatsClient();
    coalesceWrites(nc as unknown as NatsConnection);
    this.connection = nc as unknown as NatsConnection;
    return nc;
  }

  /**
   * Subscribes to every handled subject and reports started only once nats-server has them (a
   * flush is a PING answered after the SUBs before it): Nest's own start reports at once, so a
   * service could answer /health/ready while a request sent to it still got "no responders"
   * (a test suite under load saw that right after start-up).
   */
  start(callback: (err?: unknown) => void): void {
    super.start(() => {
      const flushed = this.connection ? this.connection.flush() : Promise.resolve();
      flushed.then(() => callback(), (err: unknown) => callback(err));
    });
  }

  /** Nest's subscriptions, kept here so that the process can leave and join its queue groups. */
  bindEvents(client: Parameters<ServerNats['bindEvents']>[0]): void {
    for (const [channel, handler] of this.messageHandlers) {
      const queue = (handler.extras?.queue as string | undefined) ?? this.defaultQueue;
      this.queueSubscriptions.push(client.subscribe(channel, { queue, callback: this.getMessageHandler(channel).bind(this) }) as unknown as Subscription);
    }
  }

  /**
   * Leaves every queue group: nats-server sends this process no more requests (the other replicas
   * get them, or the caller "no responders" when none is left); requests that reached it before
   * the UNSUB are still handled and answered.
   */
  async leave(): Promise<void> {
    const subscriptions = this.queueSubscriptions.splice(0);
    await Promise.all(subscriptions.map((sub) => (sub.isClosed() ? undefined : sub.drain().catch(() => undefined))));
  }

  /** Joins the queue groups again (not once draining); resolves when nats-server has the subscriptions. */
  async join(): Promise<void> {
    if (this.draining || this.queueSubscriptions.length > 0 || !this.connection || this.connection.isClosed()) return;
    this.bindEvents(this.connection as never);
    await this.connection.flush();
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
    // replies Nest's observable path publishes on the next tick, then a PING after all of them
    await new Promise((resolve) => setImmediate(resolve));
    await this.connection?.flush().catch(() => undefined);
    return settled;
  }

  /** Calls these handlers directly (set before the server starts; see directRpcRoutes). */
  useDirectRoutes(routes: Map<string, DirectRoute>): void {
    this.direct = routes;
  }

  /** Nest's per-subscription callback without its async wrapper (one promise fewer per request). */
  getMessageHandler(channel: string): ReturnType<ServerNats['getMessageHandler']> {
    return ((error: unknown, message: NatsMessage) => {
      if (error) return this.logger.error(error);
      this.handleMessage(channel, message).catch((err: unknown) => this.handleError(err as string));
    }) as unknown as ReturnType<ServerNats['getMessageHandler']>;
  }

  /**
   * A direct route's failure answered as Nest's pipeline answers it (no filters: the direct
   * routes have none): a domain error's payload, anything else "Internal server error", logged
   * with its stack.
   */
  private failed(err: unknown, data: unknown, context: NatsContext): Observable<never> {
    const host = new ExecutionContextHost([data, context]);
    host.setType('rpc');
    return this.exceptions.handle(err as Error, host) as Observable<never>;
  }

  getHandlerByPattern(pattern: string): Handler | null {
    let handler = this.routes.get(pattern);
    if (handler === undefined) {
      handler = super.getHandlerByPattern(pattern);
      this.routes.set(pattern, handler);
    }
    return handler;
  }

  /**
   * One async function per request (not a wrapper around another): each promise costs a hook
   * where an AsyncLocalStorage is on (Node 20's runs one on every promise of the process).
   */
  async handleMessage(channel: string, natsMsg: NatsMessage): Promise<unknown> {
    this.inFlight++;
    try {
      const context = new NatsContext([natsMsg.subject, natsMsg.headers as never]);
      // Nest's NATS deserializer answers at once; a promise is awaited, a value is not (no extra turn)
      const decoded = this.deserializer.deserialize(natsMsg, { channel, replyTo: natsMsg.reply }) as unknown;
      const message = (isPromiseLike(decoded) ? await decoded : decoded) as { id?: string; pattern: string; data: unknown };
      if (message.id === undefined) return await this.handleEvent(channel, message as never, context);
      const observed = observeRpc(channel, natsMsg.headers as never, message.data as RpcRequest);
      const reply = this.getPublisher(natsMsg, message.id, context) as (packet: WritePacket) => void | Promise<unknown>;
      let answered = false;
      const publish = (packet: WritePacket) => {
        if (!answered && (packet.err !== undefined || packet.isDisposed || packet.response !== undefined)) {
          answered = true;
          observed(outcomeOf(packet.err), packet.err);
        }
        return reply(packet);
      };
      let result: unknown;
      const direct = this.direct.get(channel);
      if (direct) {
        try {
          result = observed.run(() => direct(message.data, context));
          if (isPromiseLike(result)) result = await result;
        } catch (err) {
          return await this.handleRequest(context, async () => this.failed(err, message.data, context), publish);
        }
        // as Nest's RpcProxy does: a stream's error goes through the exception handler too
        if (isObservable(result)) result = result.pipe(catchError((err: unknown) => this.failed(err, message.data, context)));
      } else {
        const handler = this.getHandlerByPattern(channel);
        // (what is returned is awaited before `finally`: a request is in flight until its reply is out)
        if (!handler) return await publish({ id: message.id, status: 'error', err: NO_MESSAGE_HANDLER } as WritePacket);
        try {
          result = await observed.run(() => handler(message.data, context));
        } catch (err) {
          // Nest's proxy turns a handler's failure into an error reply; what escapes it still gets its log line
          observed('error', err);
          throw err;
        }
      }
      if (isObservable(result)) return await this.handleRequest(context, async () => result, publish);
      if (result !== undefined && natsMsg.reply && natsMsg.headers?.get(RAW_JSON_HEADER) === 'json') {
        answered = true;
        observed('ok');
        return natsMsg.respond(Buffer.from(RAW_JSON_PREFIX + JSON.stringify(result)));
      }
      const sent = publish({ response: result, isDisposed: true });
      return isPromiseLike(sent) ? await sent : sent;
    } finally {
      if (--this.inFlight === 0) this.onIdle?.();
    }
  }
}
