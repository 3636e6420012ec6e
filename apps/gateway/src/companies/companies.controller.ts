import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { Company, ListCompaniesQueryDto, ListEnvelope, RequestContext, SUBJECTS } from '@app/contracts';
import { pageOf } from '../http/page-query';
import { Ctx } from '../http/request-context.decorator';
import { assertIdParam, validateInput } from '../http/validation';
import { RpcClient } from '../rpc/rpc.client';

@Controller('api/v1/companies')
export class CompaniesController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiQuery({ type: ListCompaniesQueryDto })
  list(@Ctx() ctx: RequestContext, @Query() query: unknown): Promise<ListEnvelope<Company>> {
    return this.rpc.send(SUBJECTS.crm.companiesList, ctx, pageOf(validateInput(ListCompaniesQueryDto, query, 'query')));
  }

  @Get(':id')
  get(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<Company> {
    assertIdParam(id, 'company');
    return this.rpc.send(SUBJECTS.crm.companiesGet, ctx, { id });
  }
}
