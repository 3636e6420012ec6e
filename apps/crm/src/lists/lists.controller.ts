import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreateListRequest, ListIdRequest, ListMembersRequest, RpcRequest, SUBJECTS } from '@app/contracts';
import { unpack } from '@app/platform';
import { ListsService } from './lists.service';

/** NATS request-reply handlers of the list subjects (the application side writes lists; the API shows none). */
@Controller()
export class ListsController {
  constructor(private readonly lists: ListsService) {}

  @MessagePattern(SUBJECTS.crm.listsCreate)
  create(@Payload() message: RpcRequest<CreateListRequest>) {
    const { ctx, body } = unpack(message);
    return this.lists.create(ctx, body);
  }

  @MessagePattern(SUBJECTS.crm.listsAddLeads)
  add(@Payload() message: RpcRequest<ListMembersRequest>) {
    const { ctx, body } = unpack(message);
    return this.lists.addLeads(ctx, body);
  }

  @MessagePattern(SUBJECTS.crm.listsRemoveLeads)
  remove(@Payload() message: RpcRequest<ListMembersRequest>) {
    const { ctx, body } = unpack(message);
    return this.lists.removeLeads(ctx, body);
  }

  @MessagePattern(SUBJECTS.crm.listsOwner)
  owner(@Payload() message: RpcRequest<ListIdRequest>) {
    const { ctx, body } = unpack(message);
    return this.lists.owner(ctx, body);
  }
}
