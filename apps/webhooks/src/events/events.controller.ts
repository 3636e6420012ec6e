import { Controller } from '@nestjs/common';
import { ListEventsRequest, RequestContext, StreamEventsRequest, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { EventsService } from './events.service';

/** NATS request-reply handlers of the events subjects (GET /events, GET /events/{id}, GET /events/stream). */
@Controller()
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Rpc(SUBJECTS.webhooks.eventsList)
  list(ctx: RequestContext, body: ListEventsRequest) {
    return this.events.list(ctx, body);
  }

  @Rpc(SUBJECTS.webhooks.eventsStream)
  stream(ctx: RequestContext, body: StreamEventsRequest) {
    return this.events.stream(ctx, body);
  }

  @Rpc(SUBJECTS.webhooks.eventsGet)
  get(ctx: RequestContext, body: { id: string }) {
    return this.events.get(ctx, body.id);
  }
}
