import { Controller } from '@nestjs/common';
import { CompanyFact, MatchOrganizationRequest, RequestContext, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { OrganizationsService } from './organizations.service';

/** NATS request-reply handler crm asks when it creates a company. */
@Controller()
export class OrganizationsController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Rpc(SUBJECTS.search.organizationsMatch)
  match(_ctx: RequestContext, body: MatchOrganizationRequest): Promise<CompanyFact[]> {
    return this.organizations.factsOf(body);
  }
}
