import { Controller } from '@nestjs/common';
import { ListEventsRequest, RequestContext, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { EventsService } from './events.service';

/** NATS request-reply handlers of the events subjects (GET /events, GET /events/{id}). */
@Controller()
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Rpc(SUBJECTS.webhooks.eventsList)
  list(ctx: RequestContext, body: ListEventsRequest) {
    return this.events.list(ctx, body);
  }

  @Rpc(SUBJECTS.webhooks.eventsGet)
  get(ctx: RequestContext, body: { id: string }) {
    return this.events.get(ctx, body.id);
  }
}
