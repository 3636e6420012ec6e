import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiQuery } from '@nestjs/swagger';
import {
  CreatedWebhookEndpoint, CreateWebhookEndpointDto, DeletedEnvelope, ListEnvelope, ListWebhookEndpointsQueryDto, RequestContext,
  SUBJECTS, WebhookEndpoint,
} from '@app/contracts';
import { ApiError } from '../http/api-error';
import { Ctx } from '../http/request-context.decorator';
import { pageOf } from '../http/page-query';
import { assertIdParam, validateInput } from '../http/validation';
import { RpcClient } from '../rpc/rpc.client';

/** Only owners and admins manage webhook endpoints (spec: Authentication 8). */
function assertManager(ctx: RequestContext): void {
  if (ctx.member_role !== 'owner' && ctx.member_role !== 'admin') {
    throw new ApiError('permission_denied', 'Only workspace owners and admins may manage webhook endpoints; this key belongs to a member');
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
export class WebhookEndpointsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiQuery({ type: ListWebhookEndpointsQueryDto })
  list(@Ctx() ctx: RequestContext, @Query() query: unknown): Promise<ListEnvelope<WebhookEndpoint>> {
    assertManager(ctx);
    const page = validateInput(ListWebhookEndpointsQueryDto, query, 'query');
    return this.rpc.send(SUBJECTS.webhooks.endpointsList, ctx, pageOf(page));
  }

  @Post()
  @ApiBody({ type: CreateWebhookEndpointDto })
  @HttpCode(201)
  create(@Ctx() ctx: RequestContext, @Body() body: unknown): Promise<CreatedWebhookEndpoint> {
    assertManager(ctx);
    const endpoint = checkEndpointBody(validateInput(CreateWebhookEndpointDto, body, 'body'));
    return this.rpc.send(SUBJECTS.webhooks.endpointsCreate, ctx, endpoint);
  }

  @Delete(':id')
  delete(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<DeletedEnvelope> {
    assertManager(ctx);
    assertIdParam(id, 'webhook endpoint');
    return this.rpc.send(SUBJECTS.webhooks.endpointsDelete, ctx, { id });
  }
}
