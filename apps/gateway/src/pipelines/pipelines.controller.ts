import { Controller, Get, Query } from '@nestjs/common';
import { ListEnvelope, Pipeline, RequestContext, SUBJECTS } from '@app/contracts';
import { ListPipelinesQueryDto } from '@app/contracts/dto';
import { pageOf } from '../http/page-query';
import { Ctx } from '../http/request-context.decorator';
import { Operation } from '../openapi/operation.decorator';
import { RpcClient } from '../rpc/rpc.client';

@Controller('api/v1/pipelines')
export class PipelinesController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Operation({
    summary: 'List pipelines',
    description: 'Every pipeline with its stages in order; stage IDs feed PUT /leads/{id}/stage.',
    response: 'list:Pipeline',
    errors: [400, 401, 403, 429, 500],
  })
  list(@Ctx() ctx: RequestContext, @Query() query: ListPipelinesQueryDto): Promise<ListEnvelope<Pipeline>> {
    return this.rpc.send(SUBJECTS.crm.pipelinesList, ctx, pageOf(query));
  }
}
