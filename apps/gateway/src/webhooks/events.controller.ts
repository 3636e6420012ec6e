import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { EventEnvelope, ListEnvelope, PublicEventType, RequestContext, SUBJECTS } from '@app/contracts';
import { ListEventsQueryDto, StreamEventsQueryDto } from '@app/contracts/dto';
import { ApiError } from '../http/api-error';
import { Ctx } from '../http/request-context.decorator';
import { pageOf } from '../http/page-query';
import { Operation } from '../openapi/operation.decorator';
import { RpcClient } from '../rpc/rpc.client';
import { EventStreams } from './event-streams';

/** What a `Last-Event-ID` can be: an id as the stream sent it (printable ASCII, at most 255 characters). */
const LAST_EVENT_ID = /^[\x21-\x7e]{1,255}$/;

/**
 * The workspace's events as webhook endpoints receive them (issue 24), to every key of the
 * workspace: a test key reads the test events, a live key the live ones.
 */
@Controller('api/v1/events')
export class EventsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly streams: EventStreams,
  ) {}

  @Get()
  @Operation({
    summary: 'List events',
    description: 'The events of the last 30 days in the key\'s mode (test keys: `livemode` false; live keys: true), newest first, '
      + 'each envelope as delivered, rendered with the workspace\'s default API version. `type` keeps one event type; '
      + '`created[gte]` and `created[lte]` bound `created` (inclusive).',
    response: 'list:Event',
    errors: [400, 401, 403, 429, 500],
  })
  list(@Ctx() ctx: RequestContext, @Query() query: ListEventsQueryDto): Promise<ListEnvelope<EventEnvelope>> {
    return this.rpc.send(SUBJECTS.webhooks.eventsList, ctx, pageOf(query));
  }

  @Get('stream')
  @Operation({
    summary: 'Stream events',
    description: 'The workspace\'s events in the key\'s mode as they are stored, as Server-Sent Events (`text/event-stream`), '
      + 'until the client disconnects: one SSE event per event, its `id` the event\'s id and its `data` the envelope exactly as '
      + '`GET /events/{id}` answers it, in the order the events were stored. Lines starting with `:` are comments (a heartbeat '
      + 'at least every 15 seconds). `types` (event types separated by commas) keeps those types. Without `Last-Event-ID` the '
      + 'stream starts with the events stored from the moment of connecting; with it (the `id` of the last event received, '
      + 'as an EventSource sends it on reconnecting), every stored event after that one is sent first, then the new ones: none '
      + 'is missed or repeated. A `Last-Event-ID` that is no event of this workspace and mode in the last 30 days is 400. '
      + 'The request counts once toward the rate limit however long it stays open; a key may hold 10 streams open at once '
      + '(429 beyond). The stream ends when the key is revoked, and when the gateway restarts: reconnect with `Last-Event-ID`.',
    response: 'file',
    errors: [400, 401, 403, 429, 500],
    headers: {
      'Last-Event-ID': {
        description: 'Resume after this event: the `id` of the last event received from a stream of this key\'s workspace and mode.',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      },
    },
    media: {
      'text/event-stream': {
        schema: {
          type: 'string',
          description: 'SSE frames: `id: <event id>`, `data: <the event envelope as JSON on one line>`, a blank line; and comment lines starting with `:`.',
        },
      },
    },
  })
  async stream(@Ctx() ctx: RequestContext, @Query() query: StreamEventsQueryDto, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const header = request.headers['last-event-id'];
    let lastEventId: string | undefined;
    if (header !== undefined && header !== '') {
      if (Array.isArray(header) || !LAST_EVENT_ID.test(header)) {
        throw ApiError.invalid('Last-Event-ID', 'Last-Event-ID must be one event id, as the stream sent it');
      }
      lastEventId = header;
    }
    const types = query.types ? [...new Set(query.types.split(','))] as PublicEventType[] : undefined;
    await this.streams.serve(request, reply, ctx, { types, lastEventId });
  }

  @Get(':id')
  @Operation({
    summary: 'Retrieve an event',
    description: 'The envelope as delivered, rendered with the workspace\'s default API version. An event of the other mode, '
      + 'of another workspace or older than 30 days is 404.',
    response: 'Event',
    errors: [401, 403, 404, 429, 500],
  })
  get(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<EventEnvelope> {
    return this.rpc.send(SUBJECTS.webhooks.eventsGet, ctx, { id });
  }
}
