import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Company, ListCompaniesRequest, ListEnvelope, RpcRequest, SUBJECTS } from '@app/contracts';
import { DomainError, toListPage, unpack } from '@app/platform';
import { CompaniesRepository } from './companies.repository';
import { renderCompany } from './company.row';

@Controller()
export class CompaniesController {
  constructor(private readonly companies: CompaniesRepository) {}

  @MessagePattern(SUBJECTS.crm.companiesList)
  async list(@Payload() message: RpcRequest<ListCompaniesRequest>): Promise<ListEnvelope<Company>> {
    const { ctx, body } = unpack(message);
    return toListPage(await this.companies.list(ctx.workspace_id, body), body.limit, renderCompany);
  }

  @MessagePattern(SUBJECTS.crm.companiesGet)
  async get(@Payload() message: RpcRequest<{ id: string }>): Promise<Company> {
    const { ctx, body } = unpack(message);
    const row = await this.companies.findById(ctx.workspace_id, body.id);
    if (!row) throw DomainError.notFound('company', body.id, 'id');
    return renderCompany(row);
  }
}
