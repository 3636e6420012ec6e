import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { NatsConnection } from '@nats-io/transport-node';
import {
  CURRENT_API_VERSION, EventEnvelope, ListEnvelope, ListEventsRequest, parseDateTime, PUBLIC_EVENT_TYPES, RequestContext, StreamEventsPage,
  StreamEventsRequest, workspaceEventsSubject,
} from '@app/contracts';
import { decodeCursor, DomainError, NATS_CONNECTION, Queryable, rootLogger, runPeriodically, toListPage } from '@app/platform';
import { eventBody, renderEvent } from '../dispatch/render';
import { WEBHOOKS_CONFIG, WebhooksConfig } from '../webhooks-config';
import { EventsRepository, StreamPosition } from './events.repository';

/** The most events one read of the stream answers. */
const STREAM_PAGE_MAX = 500;

const PRUNE_EVERY_MS = 60 * 60 * 1000;

/**
 * The version the events API renders with: the workspace's default. The mesh keeps no version
 * per workspace (keys are pinned at the current version on their creation day, and `2026-09-28`
 * is the only version), so it is the current version (docs/decisions.md, "Events").
 */
const WORKSPACE_DEFAULT_VERSION = CURRENT_API_VERSION;

/**
 * The workspace's events (GET /events): stored once each when the fan-out consumes them, in its
 * transaction; read by the workspace's keys of the event's mode; pruned after
 * EVENTS_RETENTION_DAYS. Each stored event is also published on the workspace's subject for the
 * operator's `listen`, rendered as GET /events/{id} answers it.
 */
@Injectable()
export class EventsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = rootLogger('webhooks');
  private stopPruning?: () => void;

  constructor(
    private readonly events: EventsRepository,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig,
  ) {}

  /** Prunes at start-up, then hourly: a process restarted more often than hourly still prunes. */
  onApplicationBootstrap(): void {
    void this.prune().catch((err: Error) => this.log.warn({ err: err.message }, 'webhooks: pruning events failed'));
    this.stopPruning = runPeriodically(() => this.prune(), PRUNE_EVERY_MS);
  }

  private async prune(): Promise<void> {
    const pruned = await this.events.prune(this.config.eventsRetentionDays);
    if (pruned > 0) this.log.info({ pruned, retention_days: this.config.eventsRetentionDays }, 'webhooks: events past their retention deleted');
  }

  onApplicationShutdown(): void {
    this.stopPruning?.();
  }

  /** In the fan-out's transaction: the batch's fresh events, stored once. */
  store(tx: Queryable, events: EventEnvelope[]): Promise<void> {
    return this.events.insertMany(tx, events);
  }

  /** After the fan-out's commit: each stored event to whoever listens to its workspace (nothing is kept for absent listeners). */
  announce(events: EventEnvelope[]): void {
    for (const event of events) this.nc.publish(workspaceEventsSubject(event.workspace_id), renderEvent(event, WORKSPACE_DEFAULT_VERSION));
  }

  async list(ctx: RequestContext, query: ListEventsRequest): Promise<ListEnvelope<EventEnvelope>> {
    const rows = await this.events.list({
      workspaceId: ctx.workspace_id,
      livemode: ctx.livemode,
      type: query.type,
      createdGte: instant(query['created[gte]'], 'created[gte]'),
      createdLte: instant(query['created[lte]'], 'created[lte]'),
      below: query.starting_after ? decodeCursor(query.starting_after) : undefined,
      limit: query.limit,
    }, this.config.eventsRetentionDays);
    return toListPage(rows, query.limit, (row) => eventBody(row.envelope, WORKSPACE_DEFAULT_VERSION));
  }

  /**
   * GET /events/stream: the final events after the position asked (docs/decisions.md, "The events
   * stream"). Resuming after a `Last-Event-ID` starts right after that event; with neither a
   * position nor an id, the stream starts at the present: nothing yet, and the horizon's position
   * (before every transaction of this database still running).
   */
  async stream(ctx: RequestContext, request: StreamEventsRequest): Promise<StreamEventsPage> {
    const retention = this.config.eventsRetentionDays;
    let after: StreamPosition;
    if (typeof request.after === 'string') {
      after = parsePosition(request.after);
    } else if (typeof request.last_event_id === 'string') {
      const found = await this.events.positionOf(ctx.workspace_id, ctx.livemode, request.last_event_id, retention);
      if (!found) {
        throw DomainError.invalid('Last-Event-ID', `No event ${request.last_event_id} of this workspace and mode in the last ${retention} days to resume after`);
      }
      after = found;
    } else {
      return { data: [], position: formatPosition({ tx: await this.events.horizon(), id: '' }), has_more: false };
    }
    const limit = Math.min(Math.max(Math.trunc(Number(request.limit)) || 1, 1), STREAM_PAGE_MAX);
    const types = Array.isArray(request.types) ? request.types.filter((t) => PUBLIC_EVENT_TYPES.includes(t)) : undefined;
    const { rows, horizon } = await this.events.stream({ workspaceId: ctx.workspace_id, livemode: ctx.livemode, types, after, limit }, retention);
    const hasMore = rows.length === limit;
    const last = rows.at(-1);
    // a short page read every final event: the next read starts at the horizon, skipping the
    // transactions that stored nothing of this stream's
    const next = hasMore ? { tx: last!.tx, id: last!.id } : later(last ? { tx: last.tx, id: last.id } : after, { tx: horizon, id: '' });
    return { data: rows.map((row) => eventBody(row.envelope, WORKSPACE_DEFAULT_VERSION)), position: formatPosition(next), has_more: hasMore };
  }

  async get(ctx: RequestContext, id: string): Promise<EventEnvelope> {
    const row = typeof id === 'string' ? await this.events.find(ctx.workspace_id, ctx.livemode, id, this.config.eventsRetentionDays) : undefined;
    if (!row) throw DomainError.notFound('event', String(id), 'id');
    return eventBody(row.envelope, WORKSPACE_DEFAULT_VERSION);
  }
}

const POSITION = /^(\d{1,20}):(.{0,255})$/s;

function formatPosition(position: StreamPosition): string {
  return `${position.tx}:${position.id}`;
}

function parsePosition(value: string): StreamPosition {
  const match = POSITION.exec(value);
  if (!match) throw DomainError.invalid('after', 'after must be a position an earlier read of the stream answered');
  return { tx: match[1], id: match[2] };
}

/** The later of two positions (transaction ids compared as the 64-bit numbers they are). */
function later(a: StreamPosition, b: StreamPosition): StreamPosition {
  const [ta, tb] = [BigInt(a.tx), BigInt(b.tx)];
  if (ta !== tb) return ta > tb ? a : b;
  return a.id >= b.id ? a : b;
}

function instant(value: string | undefined, param: string): Date | undefined {
  if (value === undefined) return undefined;
  const at = parseDateTime(value);
  if (!at) throw DomainError.invalid(param, `${param} must be an ISO 8601 date-time with a time zone, such as 2026-10-01T09:00:00Z`);
  return at;
}
