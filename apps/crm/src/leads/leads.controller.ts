import { Controller } from '@nestjs/common';
import { CreateLeadDto, ListLeadsRequest, RequestContext, SUBJECTS, UpdateLeadDto } from '@app/contracts';
import { Rpc } from '@app/platform';
import { LeadsService } from './leads.service';

/** NATS request-reply handlers of the lead subjects. */
@Controller()
export class LeadsController {
  constructor(private readonly leads: LeadsService) {}

  @Rpc(SUBJECTS.crm.leadsList)
  list(ctx: RequestContext, body: ListLeadsRequest) {
    return this.leads.list(ctx, body);
  }

  @Rpc(SUBJECTS.crm.leadsGet)
  get(ctx: RequestContext, body: { id: string }) {
    return this.leads.get(ctx, body.id);
  }

  @Rpc(SUBJECTS.crm.leadsCreate)
  create(ctx: RequestContext, body: CreateLeadDto) {
    return this.leads.create(ctx, body);
  }

  @Rpc(SUBJECTS.crm.leadsUpdate)
  update(ctx: RequestContext, body: { id: string; changes: UpdateLeadDto }) {
    return this.leads.update(ctx, body.id, body.changes);
  }

  @Rpc(SUBJECTS.crm.leadsMoveStage)
  moveStage(ctx: RequestContext, body: { id: string; stage_id: string }) {
    return this.leads.moveStage(ctx, body.id, body.stage_id);
  }

  @Rpc(SUBJECTS.crm.leadsDelete)
  delete(ctx: RequestContext, body: { id: string }) {
    return this.leads.delete(ctx, body.id);
  }
}
