import { Controller, Get, Query } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { ListEnvelope, ListPipelinesQueryDto, Pipeline, RequestContext, SUBJECTS } from '@app/contracts';
import { pageOf } from '../http/page-query';
import { Ctx } from '../http/request-context.decorator';
import { validateInput } from '../http/validation';
import { RpcClient } from '../rpc/rpc.client';

@Controller('api/v1/pipelines')
export class PipelinesController {
  constructor(private readonly rpc: RpcClient) {}

  /** Every pipeline with its stages in order; stage ids feed PUT /leads/{id}/stage. */
  @Get()
  @ApiQuery({ type: ListPipelinesQueryDto })
  list(@Ctx() ctx: RequestContext, @Query() query: unknown): Promise<ListEnvelope<Pipeline>> {
    return this.rpc.send(SUBJECTS.crm.pipelinesList, ctx, pageOf(validateInput(ListPipelinesQueryDto, query, 'query')));
  }
}
