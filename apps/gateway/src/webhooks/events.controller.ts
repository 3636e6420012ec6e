import { Controller, Get, Param, Query } from '@nestjs/common';
import { EventEnvelope, ListEnvelope, ListEventsQueryDto, RequestContext, SUBJECTS } from '@app/contracts';
import { Ctx } from '../http/request-context.decorator';
import { pageOf } from '../http/page-query';
import { Operation } from '../openapi/operation.decorator';
import { RpcClient } from '../rpc/rpc.client';

/**
 * The workspace's events as webhook endpoints receive them (issue 24), to every key of the
 * workspace: a test key reads the test events, a live key the live ones.
 */
@Controller('api/v1/events')
export class EventsController {
  constructor(private readonly rpc: RpcClient) {}

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
