import { Context, context, Span } from '@opentelemetry/api';
import { createInbox, headers as natsHeaders, Msg, MsgHdrs, NatsConnection, PermissionViolationError, Subscription } from '@nats-io/transport-node';
import type { RpcRequest } from '@app/contracts/context';
import { isDomainErrorPayload } from '@app/contracts/error-codes';
import { randomToken } from './ids';
import { inboxPrefixOf } from './nats';
import { PublishBatch } from './publish-batch';
import { endSpan, injectTraceContext, SpanKind, startSpan } from './trace-context';

/** The request had no answer before its deadline: whether the service acted is unknown. */
export class ReplyTimeoutError extends Error {
  constructor(subject: string, timeoutMs: number) {
    super(`no reply to ${subject} within ${timeoutMs} ms`);
    this.name = 'ReplyTimeoutError';
  }
}

/** No process subscribes to the subject (NATS answered 503 at once): nothing was done. */
export class NoRespondersError extends Error {
  constructor(subject: string) {
    super(`no responders for ${subject}`);
    this.name = 'NoRespondersError';
  }
}

/**
 * How long a request (ServiceClient's retryable ones, the admin CLI's) waits, asking again at growing pauses, for a queue group with no
 * member: long enough for the replicas to rejoin after a database failover (DatabaseWatch probes
 * every 100 ms while the database is down), short enough that a stopped service still fails
 * within the 2 s a client is promised for it, well inside any deadline.
 */
export const NO_RESPONDERS_GRACE_MS = 1600;

/** The first pause before asking a queue group with no member again; each next one doubles, up to NO_RESPONDERS_MAX_PAUSE_MS. */
export const NO_RESPONDERS_FIRST_PAUSE_MS = 100;
export const NO_RESPONDERS_MAX_PAUSE_MS = 400;

interface Pending {
  subject: string;
  timeoutMs: number;
  deadline: number;
  resolve: (msg: Msg) => void;
  reject: (err: Error) => void;
}

/** How often deadlines are checked: a request fails at most this much after its deadline. */
const SWEEP_MS = 25;

/**
 * Request-reply over one connection with one reply subscription (`<inbox prefix>.<nuid>.*`) for
 * every request, like nats.js's own multiplexer, but lighter per request: no Error and no timer
 * per request (nats.js builds a "cancelled" RequestError on every successful request), a counter
 * as the reply token, and one sweep for every deadline. NATS's "no responders" status (503, when
 * no process serves the subject) fails a request at once. Only nats.js's public API: subscribe,
 * publish (through the connection's PublishBatch), status.
 */
export class ReplyMux {
  private static readonly byConnection = new WeakMap<NatsConnection, ReplyMux>();

  /** The multiplexer of a connection, made at its first request. */
  static of(nc: NatsConnection): ReplyMux {
    let mux = ReplyMux.byConnection.get(nc);
    if (!mux) {
      mux = new ReplyMux(nc);
      ReplyMux.byConnection.set(nc, mux);
    }
    return mux;
  }

  /** Under the connection's own inbox prefix (connectMesh): with NATS permissions, only this identity reads it. */
  private readonly prefix: string;
  private readonly batch: PublishBatch;
  private readonly pending = new Map<string, Pending>();
  private readonly sub: Subscription;
  private readonly sweeper: NodeJS.Timeout;
  private seq = 0;

  constructor(private readonly nc: NatsConnection) {
    this.prefix = `${createInbox(inboxPrefixOf(nc))}.`;
    this.batch = PublishBatch.of(nc);
    this.sub = nc.subscribe(`${this.prefix}*`, { callback: (err, msg) => (err ? undefined : this.settle(msg)) });
    this.sweeper = setInterval(() => this.expire(), SWEEP_MS);
    this.sweeper.unref();
    nc.closed()
      .then(() => this.close())
      .catch(() => this.close());
    void this.watchPermissions();
  }

  /**
   * A request this identity may not publish (nats-server's permissions, nats-auth.ts) fails at
   * once with the server's PermissionViolationError instead of waiting out its deadline: the
   * server tells the connection, asynchronously, which subject it refused.
   */
  private async watchPermissions(): Promise<void> {
    for await (const status of this.nc.status()) {
      const error = status.type === 'error' ? status.error : undefined;
      if (!(error instanceof PermissionViolationError) || error.operation !== 'publish') continue;
      for (const [token, waiting] of this.pending) {
        if (waiting.subject !== error.subject) continue;
        this.pending.delete(token);
        waiting.reject(error);
      }
    }
  }

  request(subject: string, data: Uint8Array | string, timeoutMs: number, headers?: MsgHdrs): Promise<Msg> {
    return new Promise<Msg>((resolve, reject) => {
      const token = (this.seq++).toString(36);
      this.pending.set(token, { subject, timeoutMs, deadline: performance.now() + timeoutMs, resolve, reject });
      this.batch.publish(subject, data, { reply: this.prefix + token, headers }, (err) => {
        this.pending.delete(token);
        reject(err);
      });
    });
  }

  /** Fails every request still waiting (the connection is closing). */
  close(): void {
    clearInterval(this.sweeper);
    if (!this.sub.isClosed()) this.sub.unsubscribe();
    for (const [token, waiting] of this.pending) {
      this.pending.delete(token);
      waiting.reject(new Error(`connection closed before ${waiting.subject} answered`));
    }
  }

  private settle(msg: Msg): void {
    const token = msg.subject.slice(this.prefix.length);
    const waiting = this.pending.get(token);
    if (!waiting) return; // answered after its deadline, or a second answer
    this.pending.delete(token);
    if (msg.data.length === 0 && msg.headers?.code === 503) waiting.reject(new NoRespondersError(waiting.subject));
    else waiting.resolve(msg);
  }

  private expire(): void {
    if (this.pending.size === 0) return;
    const now = performance.now();
    for (const [token, waiting] of this.pending) {
      if (waiting.deadline > now) continue;
      this.pending.delete(token);
      waiting.reject(new ReplyTimeoutError(waiting.subject, waiting.timeoutMs));
    }
  }
}

/** The reply packet of a Nest request-reply handler: its response, or its error payload. */
export interface ReplyPacket<T> {
  response?: T;
  err?: unknown;
}

export interface AskOptions {
  /**
   * Ask for the service's answer as its JSON bytes (RawJson, see below): a handler's value comes
   * back unparsed in `response`; an error comes in Nest's packet as always.
   */
  raw?: boolean;
  /** The trace the request continues (default: the active context). */
  parent?: Context | Span;
  /**
   * When the requester stops waiting (epoch ms), sent as RPC_DEADLINE_HEADER: the service drops
   * a read unhandled if it reaches the handler later (NatsRpcServer), and the requests its
   * handler sends end by then.
   */
  deadline?: number;
}

/** How a request ended, for its span and metrics: a reply, a domain error, or no usable answer. */
export type AskOutcome = 'ok' | 'domain_error' | 'failed';

export function askOutcomeOf(packet: ReplyPacket<unknown> | undefined): AskOutcome {
  if (!packet || packet.err === undefined || packet.err === null) return packet ? 'ok' : 'failed';
  return isDomainErrorPayload(packet.err) ? 'domain_error' : 'failed';
}

/**
 * The mesh's one request-reply client: asks the service that serves `subject` in Nest's request
 * packet (`{pattern, data, id}`) through the connection's ReplyMux and returns its reply packet;
 * a transport failure (no answer by the deadline, no responders, closed connection, a subject
 * this identity may not publish) rejects. The request continues the caller's trace (a client
 * span, `traceparent`) and names its request id (`Request-Id`). ServiceClient (services, and the
 * gateway's RpcClient) and the admin CLI ask through it.
 */
export async function askService<T>(nc: NatsConnection, subject: string, data: RpcRequest, timeoutMs: number, options: AskOptions = {}): Promise<ReplyPacket<T>> {
  const span = startSpan(`nats ${subject}`, SpanKind.CLIENT, options.parent ?? context.active(), { 'messaging.destination.name': subject });
  const headers = natsHeaders();
  if (data.ctx?.request_id) headers.set('Request-Id', data.ctx.request_id);
  if (options.raw) headers.set(RAW_JSON_HEADER, 'json');
  if (options.deadline !== undefined) headers.set(RPC_DEADLINE_HEADER, String(Math.round(options.deadline)));
  injectTraceContext(span, (key, value) => headers.set(key, value));
  let packet: ReplyPacket<T> | undefined;
  try {
    const reply = await ReplyMux.of(nc).request(subject, JSON.stringify({ pattern: subject, data, id: randomToken(12) }), timeoutMs, headers);
    if (reply.data[0] === RAW_JSON_MARK) packet = { response: new RawJson(reply.data.subarray(1)) as T };
    else if (reply.data.length === 0) throw new Error('empty reply');
    else packet = reply.json<ReplyPacket<T>>();
    return packet;
  } finally {
    const outcome = askOutcomeOf(packet);
    endSpan(span, outcome === 'failed', { outcome });
  }
}

/**
 * A reply forwarded as the JSON bytes the service sent: the gateway answers HTTP with them as they
 * are instead of parsing the reply and serialising it again. A requester asks for it with the
 * request header `Rpc-Reply: json`; a service that answers with a value then replies with
 * RAW_JSON_MARK followed by the value's JSON (no Nest envelope). Errors keep Nest's envelope.
 */
export class RawJson<T = unknown> {
  constructor(readonly bytes: Uint8Array) {}

  parse(): T {
    return JSON.parse(this.buffer().toString('utf8')) as T;
  }

  /** The bytes as a Buffer (no copy), for the HTTP response. */
  buffer(): Buffer {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
  }
}

/**
 * A handler's value already written as JSON text (e.g. a search page whose entities' `details` and
 * `sources` come from PostgreSQL as jsonb text and are spliced in as they are, not parsed and
 * serialised again): NatsRpcServer replies with the text itself, raw or inside Nest's envelope.
 * The text must be one JSON value; whoever makes it answers for that.
 */
export class JsonText<T = unknown> {
  /** Only a type for readers of the handler: what the text parses to. */
  declare readonly value?: T;

  constructor(readonly json: string) {}
}

export const RAW_JSON_HEADER = 'Rpc-Reply';
/**
 * When the requester stops waiting, in milliseconds since the epoch (wall clock: the mesh's hosts
 * keep time by NTP, whose error is far below any deadline). Absent: the service does not know.
 */
export const RPC_DEADLINE_HEADER = 'Rpc-Deadline';
/** First byte of a raw JSON reply (ASCII record separator: never the first byte of a JSON text). */
export const RAW_JSON_MARK = 0x1e;
