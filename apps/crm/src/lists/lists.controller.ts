import { Controller } from '@nestjs/common';
import { CreateListRequest, ListIdRequest, ListMembersRequest, RequestContext, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { ListsService } from './lists.service';

/** NATS request-reply handlers of the list subjects (the application side writes lists; the API shows none). */
@Controller()
export class ListsController {
  constructor(private readonly lists: ListsService) {}

  @Rpc(SUBJECTS.crm.listsCreate)
  create(ctx: RequestContext, body: CreateListRequest) {
    return this.lists.create(ctx, body);
  }

  @Rpc(SUBJECTS.crm.listsAddLeads)
  add(ctx: RequestContext, body: ListMembersRequest) {
    return this.lists.addLeads(ctx, body);
  }

  @Rpc(SUBJECTS.crm.listsRemoveLeads)
  remove(ctx: RequestContext, body: ListMembersRequest) {
    return this.lists.removeLeads(ctx, body);
  }

  @Rpc(SUBJECTS.crm.listsOwner)
  owner(ctx: RequestContext, body: ListIdRequest) {
    return this.lists.owner(ctx, body);
  }
}
