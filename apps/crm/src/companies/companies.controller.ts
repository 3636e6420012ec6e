import { Controller } from '@nestjs/common';
import { ListCompaniesRequest, RequestContext, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { CompaniesService } from './companies.service';

/** NATS request-reply handlers of the company subjects. */
@Controller()
export class CompaniesController {
  constructor(private readonly companies: CompaniesService) {}

  @Rpc(SUBJECTS.crm.companiesList)
  list(ctx: RequestContext, body: ListCompaniesRequest) {
    return this.companies.list(ctx, body);
  }

  @Rpc(SUBJECTS.crm.companiesGet)
  get(ctx: RequestContext, body: { id: string }) {
    return this.companies.get(ctx, body.id);
  }
}
