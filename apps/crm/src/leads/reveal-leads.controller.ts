import { Controller } from '@nestjs/common';
import { RequestContext, SUBJECTS, UpsertFromRevealRequest } from '@app/contracts';
import { Rpc } from '@app/platform';
import { RevealLeadsService } from './reveal-leads.service';

/** The handler search's reveal saga asks for the lead of a revealed entity. */
@Controller()
export class RevealLeadsController {
  constructor(private readonly service: RevealLeadsService) {}

  @Rpc(SUBJECTS.crm.leadsUpsertFromReveal)
  upsert(ctx: RequestContext, body: UpsertFromRevealRequest) {
    return this.service.upsert(ctx, body);
  }
}
