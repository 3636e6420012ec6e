import { Controller } from '@nestjs/common';
import {
  CreateWebhookEndpointDto, ListDeliveriesRequest, ListEndpointDeliveriesRequest, RetryDeliveryRequest, ListWebhookEndpointsRequest, RequestContext, SUBJECTS,
  TestWebhookEndpointRequest, UpdateWebhookEndpointRequest, WebhookEndpointRef,
} from '@app/contracts';
import { Rpc } from '@app/platform';
import { DeliveriesService } from './deliveries.service';
import { EndpointsService } from './endpoints.service';

/** NATS request-reply handlers of the webhook subjects. */
@Controller()
export class EndpointsController {
  constructor(
    private readonly endpoints: EndpointsService,
    private readonly deliveriesOfEndpoints: DeliveriesService,
  ) {}

  @Rpc(SUBJECTS.webhooks.endpointsList)
  list(ctx: RequestContext, body: ListWebhookEndpointsRequest) {
    return this.endpoints.list(ctx, body);
  }

  @Rpc(SUBJECTS.webhooks.endpointsCreate)
  create(ctx: RequestContext, body: CreateWebhookEndpointDto) {
    return this.endpoints.create(ctx, body);
  }

  @Rpc(SUBJECTS.webhooks.endpointsDelete)
  delete(ctx: RequestContext, body: { id: string }) {
    return this.endpoints.delete(ctx, body.id);
  }

  @Rpc(SUBJECTS.webhooks.endpointsGet)
  get(ctx: RequestContext, body: { id: string }) {
    return this.endpoints.get(ctx, body.id);
  }

  @Rpc(SUBJECTS.webhooks.endpointsUpdate)
  update(ctx: RequestContext, body: UpdateWebhookEndpointRequest) {
    return this.endpoints.update(ctx, body);
  }

  @Rpc(SUBJECTS.webhooks.endpointsRollSecret)
  rollSecret(ctx: RequestContext, body: { id: string }) {
    return this.endpoints.rollSecret(ctx, body.id);
  }

  @Rpc(SUBJECTS.webhooks.endpointDeliveries)
  endpointDeliveries(ctx: RequestContext, body: ListEndpointDeliveriesRequest) {
    return this.deliveriesOfEndpoints.list(ctx, body);
  }

  @Rpc(SUBJECTS.webhooks.deliveriesRetry)
  retryDelivery(ctx: RequestContext, body: RetryDeliveryRequest) {
    return this.deliveriesOfEndpoints.retry(ctx, body);
  }

  @Rpc(SUBJECTS.webhooks.endpointsTest)
  sendTest(ctx: RequestContext, body: TestWebhookEndpointRequest) {
    return this.deliveriesOfEndpoints.sendTest(ctx, body);
  }

  @Rpc(SUBJECTS.webhooks.endpointsEnable)
  enable(_ctx: RequestContext, body: WebhookEndpointRef) {
    return this.endpoints.enable(body.endpoint_id);
  }

  @Rpc(SUBJECTS.webhooks.deliveriesList)
  deliveries(_ctx: RequestContext, body: ListDeliveriesRequest) {
    return this.endpoints.attempts(body.endpoint_id, body.limit);
  }

  /** Tests only (WEBHOOK_TEST_CLOCK=1): moves the retry clock forward by `ms`. */
  @Rpc(SUBJECTS.webhooks.testClockAdvance)
  advanceClock(_ctx: RequestContext, body: { ms: number }) {
    return this.endpoints.advanceClock(Number(body.ms));
  }
}
