import { Injectable } from '@nestjs/common';
import { Company, ListCompaniesRequest, ListEnvelope, RequestContext } from '@app/contracts';
import { DomainError, toListPage } from '@app/platform';
import { CompaniesRepository } from './companies.repository';
import { renderCompany } from './company.mapper';

/** Companies are written by lead creates and reveals; the API only reads them. */
@Injectable()
export class CompaniesService {
  constructor(private readonly companies: CompaniesRepository) {}

  async list(ctx: RequestContext, query: ListCompaniesRequest): Promise<ListEnvelope<Company>> {
    return toListPage(await this.companies.list(ctx.workspace_id, query), query.limit, renderCompany);
  }

  async get(ctx: RequestContext, id: string): Promise<Company> {
    const row = await this.companies.findById(ctx.workspace_id, id);
    if (!row) throw DomainError.notFound('company', id, 'id');
    return renderCompany(row);
  }
}
