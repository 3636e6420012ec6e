import { Inject, Injectable } from '@nestjs/common';
import { PassThrough } from 'node:stream';
import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_PLANS, PublicEventType, RequestContext, StreamEventsPage, StreamEventsRequest, SUBJECTS } from '@app/contracts';
import { rootLogger, SERVICE_CONFIG } from '@app/platform';
import { hashApiKey, parseBearer } from '../auth/api-key';
import { ApiKeysRepository } from '../auth/api-keys.repository';
import { GatewayConfig } from '../config';
import { ApiError } from '../http/api-error';
import { RpcClient } from '../rpc/rpc.client';
import { renderForVersion } from '../versioning/versions';

/** Events one read of the stream asks for; a full page is followed by the next read at once. */
const PAGE = 100;
/** The longest wait between reads while the webhooks service does not answer. */
const MAX_BACKOFF_MS = 10_000;
/** What a client waits before reconnecting (the SSE `retry` field). */
const RECONNECT_MS = 1000;
/** Bytes the client may leave unread before the stream waits for it. */
const HIGH_WATER_BYTES = 256 * 1024;

export interface StreamOptions {
  types?: PublicEventType[];
  /** The client's `Last-Event-ID`: resume right after that stored event. */
  lastEventId?: string;
}

/** One SSE event: the envelope as GET /events/{id} answers it, its id as the SSE id. */
export function eventFrame(id: string, body: string): string {
  return `id: ${id}\ndata: ${body}\n\n`;
}

/**
 * The open `GET /events/stream` responses of this replica (docs/decisions.md, "The events
 * stream"). Each reads the workspace's stored events through the webhooks service every
 * EVENTS_STREAM_POLL_MS, after the position of the last one sent, in the order they became final,
 * so an event committed late behind a newer one is still sent, once. Each ends when its client
 * goes, when its key is revoked, and when the gateway stops (the client resumes elsewhere with
 * `Last-Event-ID`).
 */
@Injectable()
export class EventStreams {
  private readonly open = new Set<EventStream>();
  private readonly perKey = new Map<string, number>();
  private closing = false;

  constructor(
    private readonly rpc: RpcClient,
    private readonly keys: ApiKeysRepository,
    @Inject(SERVICE_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** Ends every stream as the server starts closing: an open stream would hold the drain for its whole grace. */
  install(fastify: FastifyInstance): void {
    fastify.addHook('preClose', (done) => {
      this.closing = true;
      for (const stream of this.open) stream.stop();
      done();
    });
  }

  get size(): number {
    return this.open.size;
  }

  /**
   * Answers the request with the stream. Everything that can refuse it (an unknown
   * `Last-Event-ID`, too many streams, the webhooks service not answering) is decided before
   * the first byte, so a refusal is the error object with its status.
   */
  async serve(request: FastifyRequest, reply: FastifyReply, ctx: RequestContext, options: StreamOptions): Promise<void> {
    const held = this.perKey.get(ctx.key_id) ?? 0;
    if (held >= this.config.eventsStreamsPerKey) {
      throw new ApiError('rate_limited', `This key has ${held} event streams open, the most it may; close one before opening another`, undefined, {
        'Retry-After': String(Math.ceil(this.config.eventsStreamPollMs / 1000)),
      });
    }
    const first = await this.rpc.send<StreamEventsPage>(SUBJECTS.webhooks.eventsStream, ctx, {
      last_event_id: options.lastEventId, types: options.types, limit: PAGE,
    } satisfies StreamEventsRequest);
    const keyHash = hashApiKey(parseBearer(request.headers.authorization) ?? '');
    const stream = new EventStream(ctx, options, first, {
      read: (after) => this.rpc.send<StreamEventsPage>(SUBJECTS.webhooks.eventsStream, ctx, { after, types: options.types, limit: PAGE } satisfies StreamEventsRequest),
      keyValid: async () => {
        const key = await this.keys.findByHash(keyHash);
        return key !== null && !key.revoked && API_PLANS.includes(key.plan);
      },
    }, this.config);
    this.open.add(stream);
    this.perKey.set(ctx.key_id, held + 1);
    stream.finished.then(() => {
      this.open.delete(stream);
      const left = (this.perKey.get(ctx.key_id) ?? 1) - 1;
      if (left > 0) this.perKey.set(ctx.key_id, left);
      else this.perKey.delete(ctx.key_id);
    });
    reply.raw.once('close', () => stream.stop());
    reply
      .header('Content-Type', 'text/event-stream; charset=utf-8')
      .header('Cache-Control', 'no-cache, no-transform')
      // nginx and proxies like it pass each event on as it comes instead of buffering the response
      .header('X-Accel-Buffering', 'no');
    void reply.send(stream.body);
    if (this.closing) stream.stop();
    else void stream.run();
  }
}

interface StreamSource {
  read(after: string): Promise<StreamEventsPage>;
  keyValid(): Promise<boolean>;
}

/** One client's stream: a read loop and a heartbeat writing SSE frames into `body`. */
class EventStream {
  readonly body = new PassThrough({ highWaterMark: HIGH_WATER_BYTES });
  readonly finished: Promise<void>;
  private position: string;
  private stopped = false;
  private wake?: () => void;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly log = rootLogger('gateway');
  private markFinished!: () => void;

  constructor(
    private readonly ctx: RequestContext,
    options: StreamOptions,
    first: StreamEventsPage,
    private readonly source: StreamSource,
    private readonly config: GatewayConfig,
  ) {
    this.finished = new Promise((resolve) => (this.markFinished = resolve));
    this.position = first.position;
    const scope = `${ctx.workspace_id} (${ctx.livemode ? 'live' : 'test'} events${options.types ? `: ${options.types.join(', ')}` : ''})`;
    this.body.write(`: events of ${scope}\nretry: ${RECONNECT_MS}\n\n`);
    this.writePage(first);
    this.heartbeat = setInterval(() => this.body.write(': keep-alive\n\n'), config.eventsStreamHeartbeatMs);
    this.body.once('close', () => this.stop());
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.heartbeat);
    this.wake?.();
    this.body.end();
    this.markFinished();
  }

  async run(): Promise<void> {
    let failures = 0;
    let immediately = false;
    while (!this.stopped) {
      if (!immediately) await this.pause(Math.min(this.config.eventsStreamPollMs * 2 ** failures, MAX_BACKOFF_MS));
      if (this.stopped) return;
      // a slow reader holds the reads back rather than the gateway's memory
      if (this.body.writableNeedDrain) await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.body.once('drain', resolve);
      });
      if (this.stopped) return;
      let page: StreamEventsPage;
      try {
        if (!(await this.source.keyValid())) return this.stop();
        page = await this.source.read(this.position);
      } catch (err) {
        failures = Math.min(failures + 1, 8);
        immediately = false;
        this.log.warn({ request_id: this.ctx.request_id, workspace_id: this.ctx.workspace_id, err: (err as Error).message }, 'events stream: read failed; trying again');
        continue;
      }
      failures = 0;
      if (this.stopped) return;
      this.writePage(page);
      immediately = page.has_more;
    }
  }

  private writePage(page: StreamEventsPage): void {
    for (const event of page.data) this.body.write(eventFrame(event.id, JSON.stringify(renderForVersion(event, this.ctx.api_version))));
    this.position = page.position;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
