import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreateLeadDto, ListLeadsRequest, RpcRequest, SUBJECTS, UpdateLeadDto } from '@app/contracts';
import { unpack } from '@app/platform';
import { LeadsService } from './leads.service';

/** NATS request-reply handlers of the lead subjects. */
@Controller()
export class LeadsController {
  constructor(private readonly leads: LeadsService) {}

  @MessagePattern(SUBJECTS.crm.leadsList)
  list(@Payload() message: RpcRequest<ListLeadsRequest>) {
    const { ctx, body } = unpack(message);
    return this.leads.list(ctx, body);
  }

  @MessagePattern(SUBJECTS.crm.leadsGet)
  get(@Payload() message: RpcRequest<{ id: string }>) {
    const { ctx, body } = unpack(message);
    return this.leads.get(ctx, body.id);
  }

  @MessagePattern(SUBJECTS.crm.leadsCreate)
  create(@Payload() message: RpcRequest<CreateLeadDto>) {
    const { ctx, body } = unpack(message);
    return this.leads.create(ctx, body);
  }

  @MessagePattern(SUBJECTS.crm.leadsUpdate)
  update(@Payload() message: RpcRequest<{ id: string; changes: UpdateLeadDto }>) {
    const { ctx, body } = unpack(message);
    return this.leads.update(ctx, body.id, body.changes);
  }

  @MessagePattern(SUBJECTS.crm.leadsMoveStage)
  moveStage(@Payload() message: RpcRequest<{ id: string; stage_id: string }>) {
    const { ctx, body } = unpack(message);
    return this.leads.moveStage(ctx, body.id, body.stage_id);
  }

  @MessagePattern(SUBJECTS.crm.leadsDelete)
  delete(@Payload() message: RpcRequest<{ id: string }>) {
    const { ctx, body } = unpack(message);
    return this.leads.delete(ctx, body.id);
  }
}
