import { Body, Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { CreateRevealRequest, RequestContext, Reveal, RevealOutcome, SearchResults, SUBJECTS } from '@app/contracts';
import { ApiError } from '../http/api-error';
import { Ctx } from '../http/request-context.decorator';
import { LensOnPlan } from '../http/lens.guard';
import { Operation } from '../openapi/operation.decorator';
import { Forwarded, RpcClient } from '../rpc/rpc.client';
import { parseSearchQuery, SEARCH_QUERY_DOC } from './search-query';

@Controller('api/v1')
export class SearchController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('search')
  @Operation({
    summary: 'Search a lens',
    description: 'Costs 1 credit per page on a live key (0 on a test key). 25 results a page, contact details masked.',
    response: 'SearchResults',
    errors: [400, 401, 402, 403, 429, 500],
    query: SEARCH_QUERY_DOC,
  })
  @LensOnPlan('query', 'lens')
  search(@Ctx() ctx: RequestContext, @Query() query: unknown): Promise<Forwarded<SearchResults>> {
    const request = parseSearchQuery(query);
    if (ctx.mode === 'test' && request.page !== 1) throw ApiError.invalid('page', 'Test keys can read page 1 only');
    return this.rpc.forward(SUBJECTS.search.query, ctx, request);
  }

  /** 201 for a first reveal, 200 when the workspace had revealed the entity before. */
  @Post('reveals')
  @HttpCode(201)
  @Operation({
    summary: 'Reveal a search result',
    description:
      'Reveals email and phone for a search result, verifies the email and saves the result as a lead. Costs 1 credit; ' +
      'revealing an already-revealed entity is free (200, `already_revealed` true). If nothing verifiable is found the credit ' +
      'is refunded and `status` is `no_contact_found`.',
    response: 'Reveal',
    status: 201,
    alsoStatus: { 200: 'The entity was already revealed: free, `already_revealed` true.' },
    errors: [400, 401, 402, 403, 404, 409, 429, 500],
    idempotent: true,
    body: {
      type: 'object',
      properties: { entity_id: { type: 'string', maxLength: 255, description: 'From a search hit (prefix `ent_`).' } },
      required: ['entity_id'],
      additionalProperties: false,
    },
  })
  async reveal(@Ctx() ctx: RequestContext, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<Reveal> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw ApiError.invalid(undefined, 'The request body must be a JSON object');
    for (const key of Object.keys(body)) if (key !== 'entity_id') throw ApiError.invalid(key, `Unknown parameter: ${key}`);
    const entityId = (body as CreateRevealRequest).entity_id;
    if (typeof entityId !== 'string' || entityId === '') throw ApiError.invalid('entity_id', 'entity_id is required');
    if (entityId.length > 255 || !entityId.startsWith('ent_')) throw new ApiError('not_found', `No such entity: '${entityId.slice(0, 60)}'`, 'entity_id');
    const outcome = await this.rpc.send<RevealOutcome>(SUBJECTS.search.revealsCreate, ctx, { entity_id: entityId });
    if (!outcome.created) reply.status(200);
    return outcome.reveal;
  }
}
