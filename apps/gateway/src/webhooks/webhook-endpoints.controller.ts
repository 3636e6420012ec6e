import { Body, CanActivate, Controller, Delete, ExecutionContext, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import {
  CreatedWebhookEndpoint, CreateWebhookEndpointDto, DeletedEnvelope, ListEnvelope, ListWebhookEndpointsQueryDto, RequestContext,
  SUBJECTS, WebhookEndpoint,
} from '@app/contracts';
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

/** The URL an endpoint receives events at: absolute HTTPS with a host and no credentials. */
export function checkEndpointBody(body: CreateWebhookEndpointDto): CreateWebhookEndpointDto {
  let url: URL;
  try {
    url = new URL(body.url);
  } catch {
    throw ApiError.invalid('url', 'url must be an absolute URL');
  }
  if (url.protocol !== 'https:') throw ApiError.invalid('url', 'url must use HTTPS');
  if (!url.hostname) throw ApiError.invalid('url', 'url must name a host');
  if (url.username || url.password) throw ApiError.invalid('url', 'url must not carry credentials');
  if (body.events.includes('*') && body.events.length > 1) {
    throw ApiError.invalid('events', "events is either the single value '*' or a list of event types");
  }
  return body;
}

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
    description: 'The response carries `secret`, which cannot be retrieved again.',
    response: 'WebhookEndpointWithSecret',
    status: 201,
    errors: [400, 401, 403, 409, 429, 500],
    idempotent: true,
  })
  create(@Ctx() ctx: RequestContext, @Body() endpoint: CreateWebhookEndpointDto): Promise<CreatedWebhookEndpoint> {
    return this.rpc.send(SUBJECTS.webhooks.endpointsCreate, ctx, checkEndpointBody(endpoint));
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
