import { Body, CanActivate, Controller, Delete, ExecutionContext, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { CreatedWebhookEndpoint, DeletedEnvelope, ListEnvelope, RequestContext, RolledWebhookEndpoint, SUBJECTS, WEBHOOK_LIMITS, WebhookDelivery, WebhookEndpoint } from '@app/contracts';
import { CreateWebhookEndpointDto, ListWebhookEndpointsQueryDto, ListWebhookDeliveriesQueryDto, TestWebhookEndpointDto, UpdateWebhookEndpointDto } from '@app/contracts/dto';
import { ApiError } from '../http/api-error';
import { Ctx } from '../http/request-context.decorator';
import { pageOf } from '../http/page-query';
import { Operation } from '../openapi/operation.decorator';
import { RpcClient } from '../rpc/rpc.client';

/** Only owners and admins manage webhook endpoints (spec: Authentication 8). */
class ManagersOnly implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const ctx = context.switchToHttp().getRequest<FastifyRequest>().ctx;
    if (ctx && ctx.member_role !== 'owner' && ctx.member_role !== 'admin') {
      throw new ApiError('permission_denied', 'Only workspace owners and admins may manage webhook endpoints; this key belongs to a member');
    }
    return true;
  }
}

/**
 * The URL an endpoint receives events at: absolute HTTPS with a host and no credentials; `*`
 * stands alone in `events`. A field not sent (PATCH) is not checked.
 */
export function checkEndpointBody<B extends { url?: string; events?: string[] }>(body: B): B {
  if (body.url !== undefined) {
    let url: URL;
    try {
      url = new URL(body.url);
    } catch {
      throw ApiError.invalid('url', 'url must be an absolute URL');
    }
    if (url.protocol !== 'https:') throw ApiError.invalid('url', 'url must use HTTPS');
    if (!url.hostname) throw ApiError.invalid('url', 'url must name a host');
    if (url.username || url.password) throw ApiError.invalid('url', 'url must not carry credentials');
  }
  if (body.events?.includes('*') && body.events.length > 1) {
    throw ApiError.invalid('events', "events is either the single value '*' or a list of event types");
  }
  return body;
}

/** The body of a POST that takes no parameters: an empty object (or no body at all). */
const NO_PARAMETERS = { type: 'object', properties: {}, description: 'No parameters: an empty object, or no body (other fields are ignored).' } as const;

@Controller('api/v1/webhook_endpoints')
@UseGuards(new ManagersOnly())
export class WebhookEndpointsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Operation({
    summary: 'List webhook endpoints',
    description: 'Secrets are never returned.',
    response: 'list:WebhookEndpoint',
    errors: [401, 403, 429, 500],
  })
  list(@Ctx() ctx: RequestContext, @Query() page: ListWebhookEndpointsQueryDto): Promise<ListEnvelope<WebhookEndpoint>> {
    return this.rpc.send(SUBJECTS.webhooks.endpointsList, ctx, pageOf(page));
  }

  @Post()
  @HttpCode(201)
  @Operation({
    summary: 'Create a webhook endpoint',
    description: 'The response carries `secret`, which cannot be retrieved again. A workspace has at most '
      + `${WEBHOOK_LIMITS.endpoints} endpoints (live and test keys' together): another is 400 \`invalid_request\` until one is deleted. `
      + '`url` must reach a public address: a literal private, loopback, link-local or other special-purpose address is 400 `invalid_request` on `url`.',
    response: 'WebhookEndpointWithSecret',
    status: 201,
    errors: [400, 401, 403, 409, 429, 500],
    idempotent: true,
  })
  create(@Ctx() ctx: RequestContext, @Body() endpoint: CreateWebhookEndpointDto): Promise<CreatedWebhookEndpoint> {
    return this.rpc.send(SUBJECTS.webhooks.endpointsCreate, ctx, checkEndpointBody(endpoint));
  }

  @Get(':id')
  @Operation({
    summary: 'Retrieve a webhook endpoint',
    description: 'The secret is never returned.',
    response: 'WebhookEndpoint',
    errors: [401, 403, 404, 429, 500],
  })
  get(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<WebhookEndpoint> {
    return this.rpc.send(SUBJECTS.webhooks.endpointsGet, ctx, { id });
  }

  @Patch(':id')
  @Operation({
    summary: 'Update a webhook endpoint',
    description: 'Changes only the fields sent. `status` `disabled` stops deliveries and drops pending retries; '
      + '`enabled` switches a disabled endpoint back on with its failure count restarted (new events only).',
    response: 'WebhookEndpoint',
    errors: [400, 401, 403, 404, 429, 500],
  })
  update(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() changes: UpdateWebhookEndpointDto): Promise<WebhookEndpoint> {
    return this.rpc.send(SUBJECTS.webhooks.endpointsUpdate, ctx, { ...checkEndpointBody(changes), id });
  }

  @Post(':id/secret/roll')
  @HttpCode(200)
  @Operation({
    summary: 'Roll a webhook endpoint\'s signing secret',
    description: 'Returns a new `secret`, which cannot be retrieved again. Until `previous_secret_expires_at` '
      + '(24 hours by default) each delivery carries two `v1` signatures in `Service-Signature`, one per secret.',
    response: 'WebhookEndpointWithRolledSecret',
    status: 200,
    body: NO_PARAMETERS,
    errors: [401, 403, 404, 409, 429, 500],
    idempotent: true,
  })
  rollSecret(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<RolledWebhookEndpoint> {
    return this.rpc.send(SUBJECTS.webhooks.endpointsRollSecret, ctx, { id });
  }

  @Get(':id/deliveries')
  @Operation({
    summary: 'List a webhook endpoint\'s deliveries',
    description: 'Newest first: each event sent to the endpoint with its type, every attempt (status code or error, latency), '
      + 'the next attempt while pending, and the final state.',
    response: 'list:WebhookDelivery',
    errors: [400, 401, 403, 404, 429, 500],
  })
  deliveries(@Ctx() ctx: RequestContext, @Param('id') id: string, @Query() page: ListWebhookDeliveriesQueryDto): Promise<ListEnvelope<WebhookDelivery>> {
    return this.rpc.send(SUBJECTS.webhooks.endpointDeliveries, ctx, { ...pageOf(page), id });
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @HttpCode(202)
  @Operation({
    summary: 'Send a delivery again',
    description: 'Sent again at once, whatever its state, as its next attempt: the same body and event `id`, signed anew. '
      + '409 when the endpoint is disabled.',
    response: 'WebhookDelivery',
    status: 202,
    body: NO_PARAMETERS,
    errors: [401, 403, 404, 409, 429, 500],
    idempotent: true,
  })
  retryDelivery(@Ctx() ctx: RequestContext, @Param('id') id: string, @Param('delivery_id') deliveryId: string): Promise<WebhookDelivery> {
    return this.rpc.send(SUBJECTS.webhooks.deliveriesRetry, ctx, { id, delivery_id: deliveryId });
  }

  @Post(':id/test')
  @HttpCode(202)
  @Operation({
    summary: 'Send a sample event to a webhook endpoint',
    description: 'Sends a sample event of `type` to this endpoint at once, whatever types it subscribes to: a new `evt_` id, '
      + '`livemode` false and `"sample": true`, with sample `data`, signed as every delivery. Answers the delivery (pending); '
      + 'its attempts appear in the endpoint\'s deliveries. A sample that fails is retried once, about a minute later, and no more. '
      + 'Sample events are not listed by GET /events. 409 when the endpoint is disabled.',
    response: 'WebhookDelivery',
    status: 202,
    errors: [400, 401, 403, 404, 409, 429, 500],
    idempotent: true,
  })
  sendTest(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() body: TestWebhookEndpointDto): Promise<WebhookDelivery> {
    return this.rpc.send(SUBJECTS.webhooks.endpointsTest, ctx, { id, type: body.type });
  }

  @Delete(':id')
  @Operation({
    summary: 'Delete a webhook endpoint',
    description: 'Stops deliveries immediately; deliveries in retry are dropped.',
    response: 'DeletedObject',
    errors: [401, 403, 404, 429, 500],
  })
  delete(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<DeletedEnvelope> {
    return this.rpc.send(SUBJECTS.webhooks.endpointsDelete, ctx, { id });
  }
}
