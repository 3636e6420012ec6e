import { Controller } from '@nestjs/common';
import { AddMemberRequest, CreateKeyRequest, CreateWorkspaceRequest, MemberContextRequest, RequestContext, RevokeKeyRequest, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { WorkspacesService } from './workspaces.service';

/**
 * NATS request-reply handlers of the operator's workspace, member and key subjects (only the
 * operator's identity may publish them). The context is the operator's: the workspace is in the body.
 */
@Controller()
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Rpc(SUBJECTS.gateway.workspacesCreate)
  create(ctx: RequestContext, body: CreateWorkspaceRequest) {
    return this.workspaces.createWorkspace(body, ctx.request_id);
  }

  @Rpc(SUBJECTS.gateway.membersAdd)
  addMember(_ctx: RequestContext, body: AddMemberRequest) {
    return this.workspaces.addMember(body);
  }

  @Rpc(SUBJECTS.gateway.membersContext)
  memberContext(_ctx: RequestContext, body: MemberContextRequest) {
    return this.workspaces.memberContext(body);
  }

  @Rpc(SUBJECTS.gateway.keysCreate)
  createKey(_ctx: RequestContext, body: CreateKeyRequest) {
    return this.workspaces.createKey(body);
  }

  @Rpc(SUBJECTS.gateway.keysRevoke)
  revokeKey(_ctx: RequestContext, body: RevokeKeyRequest) {
    return this.workspaces.revokeKey(body);
  }
}
