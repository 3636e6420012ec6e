import { Controller, Get, Param, Query } from '@nestjs/common';
import { Company, ListEnvelope, RequestContext, SUBJECTS } from '@app/contracts';
import { ListCompaniesQueryDto } from '@app/contracts/dto';
import { pageOf } from '../http/page-query';
import { Ctx } from '../http/request-context.decorator';
import { Operation } from '../openapi/operation.decorator';
import { RpcClient } from '../rpc/rpc.client';

@Controller('api/v1/companies')
export class CompaniesController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Operation({ summary: 'List companies', response: 'list:Company', errors: [400, 401, 403, 429, 500] })
  list(@Ctx() ctx: RequestContext, @Query() query: ListCompaniesQueryDto): Promise<ListEnvelope<Company>> {
    return this.rpc.send(SUBJECTS.crm.companiesList, ctx, pageOf(query));
  }

  @Get(':id')
  @Operation({ summary: 'Retrieve a company', response: 'Company', errors: [401, 403, 404, 429, 500] })
  get(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<Company> {
    return this.rpc.send(SUBJECTS.crm.companiesGet, ctx, { id });
  }
}
