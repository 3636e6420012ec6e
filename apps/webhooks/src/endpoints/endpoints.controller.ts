import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CreateWebhookEndpointDto, ListDeliveriesRequest, ListWebhookEndpointsRequest, RpcRequest, SUBJECTS, WebhookEndpointRef,
} from '@app/contracts';
import { DomainError, PG_POOL, unpack } from '@app/platform';
import { Pool } from 'pg';
import { WEBHOOKS_CONFIG, WebhooksConfig } from '../webhooks-config';
import { EndpointsService } from './endpoints.service';

/** NATS request-reply handlers of the webhook subjects. */
@Controller()
export class EndpointsController {
  constructor(
    private readonly endpoints: EndpointsService,
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {}

  @MessagePattern(SUBJECTS.webhooks.endpointsList)
  list(@Payload() message: RpcRequest<ListWebhookEndpointsRequest>) {
    const { ctx, body } = unpack(message);
    return this.endpoints.list(ctx, body);
  }

  @MessagePattern(SUBJECTS.webhooks.endpointsCreate)
  create(@Payload() message: RpcRequest<CreateWebhookEndpointDto>) {
    const { ctx, body } = unpack(message);
    return this.endpoints.create(ctx, body);
  }

  @MessagePattern(SUBJECTS.webhooks.endpointsDelete)
  delete(@Payload() message: RpcRequest<{ id: string }>) {
    const { ctx, body } = unpack(message);
    return this.endpoints.delete(ctx, body.id);
  }

  @MessagePattern(SUBJECTS.webhooks.endpointsEnable)
  enable(@Payload() message: RpcRequest<WebhookEndpointRef>) {
    return this.endpoints.enable(unpack(message).body.endpoint_id);
  }

  @MessagePattern(SUBJECTS.webhooks.deliveriesList)
  deliveries(@Payload() message: RpcRequest<ListDeliveriesRequest>) {
    const { body } = unpack(message);
    return this.endpoints.attempts(body.endpoint_id, body.limit);
  }

  /** Tests only (WEBHOOK_TEST_CLOCK=1): moves the retry clock forward by `ms`. */
  @MessagePattern(SUBJECTS.webhooks.testClockAdvance)
  async advanceClock(@Payload() message: RpcRequest<{ ms: number }>) {
    if (!this.config.testClock) throw new DomainError('permission_denied', 'the test clock is off (WEBHOOK_TEST_CLOCK=1 turns it on)');
    const ms = Number(unpack(message).body.ms);
    if (!Number.isInteger(ms) || ms < 0) throw DomainError.invalid('ms', 'ms must be a non-negative integer');
    const { rows } = await this.pool.query<{ offset_ms: string }>(
      `INSERT INTO webhook_test_clock (id, offset_ms) VALUES (1, $1)
       ON CONFLICT (id) DO UPDATE SET offset_ms = webhook_test_clock.offset_ms + EXCLUDED.offset_ms RETURNING offset_ms`,
      [ms],
    );
    await this.pool.query('NOTIFY webhook_deliveries');
    return { offset_ms: Number(rows[0].offset_ms) };
  }
}
