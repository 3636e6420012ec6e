import { Controller } from '@nestjs/common';
import { GetLeadsRequest, RequestContext, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { LeadsService } from './leads.service';

/** Internal subjects other services ask about many leads at once (sequences enrolling a batch, the opt-out portal). */
@Controller()
export class LeadsBatchController {
  constructor(private readonly leads: LeadsService) {}

  @Rpc(SUBJECTS.crm.leadsGetMany)
  getMany(ctx: RequestContext, body: GetLeadsRequest) {
    return this.leads.contactsOf(ctx, body?.ids);
  }

  @Rpc(SUBJECTS.crm.leadsWorkspacesByEmail)
  workspacesByEmail(_ctx: RequestContext, body: { email: string }) {
    return this.leads.workspacesByEmail(body?.email);
  }
}
