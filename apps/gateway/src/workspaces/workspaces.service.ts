import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from '@nats-io/transport-node';
import {
  AddedMember, AddMemberRequest, CreatedKey, CreatedWorkspace, CreateKeyRequest, CreateWorkspaceRequest, CURRENT_API_VERSION, EVENT, ID_PREFIX,
  KEY_MODES, KEYS_CHANGED_SUBJECT, LENSES, MEMBER_ROLES, MemberContext, MemberContextRequest, OPEN_ACCOUNT_WAIT_MS, OpenAccountRequest, OpenedAccount, PLANS,
  RequestContext, RevokedKey, RevokeKeyRequest, SUBJECTS, WorkspaceCreatedData,
} from '@app/contracts';
import { DomainError, NATS_CONNECTION, newId, recordEvent, rootLogger, SERVICE_CONFIG, UnitOfWork, withoutCredentials } from '@app/platform';
import { generateApiKey, hashApiKey } from '../auth/api-key';
import { GatewayConfig } from '../config';
import { GATEWAY_MIGRATIONS } from '../migrations';
import { RpcClient } from '../rpc/rpc.client';
import { WorkspaceEntity } from './workspace.entity';
import { WorkspacesRepository } from './workspaces.repository';

/**
 * The application side of workspaces, members and keys, which the public API leaves out: the
 * operator asks for them over NATS (the admin CLI). Messages are written for the operator, who
 * reads them as they are.
 */
@Injectable()
export class WorkspacesService {
  constructor(
    private readonly repository: WorkspacesRepository,
    private readonly uow: UnitOfWork,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(SERVICE_CONFIG) private readonly config: GatewayConfig,
    private readonly rpc: RpcClient,
  ) {}

  /**
   * Creates the workspace and its owner (and `workspace.created`, in one transaction), then asks
   * billing to open the credit account with the event's opening before answering, so that the
   * workspace's first search or reveal finds its credits rather than a 402 for an account that
   * the event has not opened yet. Billing stopped or slow: the answer says `pending`, and the
   * event opens the account when billing reads it (once, whichever of the two comes first).
   */
  async createWorkspace(input: CreateWorkspaceRequest, requestId: string = newId(ID_PREFIX.request)): Promise<CreatedWorkspace> {
    await this.requireCurrentSchema();
    oneOf('plan', input.plan, PLANS);
    for (const lens of input.lenses) oneOf('lenses', lens, LENSES);
    const id = newId(ID_PREFIX.workspace);
    const ownerId = newId(ID_PREFIX.member);
    // what the event carries and what billing is asked to open: one opening
    const opening: OpenAccountRequest = { workspace_id: id, plan: input.plan, plan_credits: input.plan_credits, pack_credits: input.pack_credits };
    await this.uow.run(async ({ manager, client }) => {
      await this.repository.insertWorkspace(
        manager,
        { id, name: input.name, plan: input.plan, lenses: input.lenses, ownerId },
        { id: ownerId, workspaceId: id, role: 'owner' },
      );
      await recordEvent<WorkspaceCreatedData>(client, {
        type: EVENT.workspaceCreated,
        workspace_id: id,
        livemode: true,
        api_version: CURRENT_API_VERSION,
        object: opening,
      });
    });
    const ctx: RequestContext = {
      request_id: requestId, workspace_id: id, key_id: 'gateway', member_id: ownerId, member_role: 'owner', owner_id: ownerId,
      mode: 'live', livemode: true, api_version: CURRENT_API_VERSION, plan: input.plan, lenses: input.lenses,
    };
    const creditAccount = await this.rpc.send<OpenedAccount>(SUBJECTS.billing.accountsOpen, ctx, opening, OPEN_ACCOUNT_WAIT_MS).then(
      () => 'open' as const,
      (err: unknown) => {
        rootLogger('gateway').warn({ request_id: requestId, workspace_id: id, reason: (err as Error)?.message }, 'billing did not open the new workspace\'s credit account; the event will');
        return 'pending' as const;
      },
    );
    return { id, owner_id: ownerId, plan: input.plan, credit_account: creditAccount };
  }

  async addMember({ workspace_id, role }: AddMemberRequest): Promise<AddedMember> {
    await this.requireCurrentSchema();
    oneOf('role', role, MEMBER_ROLES);
    await this.requireWorkspace(workspace_id);
    const id = newId(ID_PREFIX.member);
    await this.repository.insertMember({ id, workspaceId: workspace_id, role });
    return { id, workspace_id, role };
  }

  /** Who a member (the owner by default) is, for a request the operator makes as that member. */
  async memberContext({ workspace_id, member_id }: MemberContextRequest): Promise<MemberContext> {
    await this.requireCurrentSchema();
    const workspace = await this.requireWorkspace(workspace_id);
    const member = await this.requireMember(workspace_id, member_id ?? workspace.ownerId);
    return { workspace_id, member_id: member.id, member_role: member.role, owner_id: workspace.ownerId, plan: workspace.plan, lenses: workspace.lenses };
  }

  async createKey({ workspace_id, mode, name, member_id }: CreateKeyRequest): Promise<CreatedKey> {
    await this.requireCurrentSchema();
    oneOf('mode', mode, KEY_MODES);
    const workspace = await this.requireWorkspace(workspace_id);
    const member = await this.requireMember(workspace_id, member_id ?? workspace.ownerId);
    const key = generateApiKey(mode);
    const id = newId(ID_PREFIX.apiKey);
    await this.repository.insertKey({
      id, workspaceId: workspace_id, memberId: member.id, name, mode, keyHash: hashApiKey(key), last4: key.slice(-4), apiVersion: CURRENT_API_VERSION,
    });
    return { id, key, mode, api_version: CURRENT_API_VERSION };
  }

  /** Revokes a key and tells every gateway replica (this one too) to drop its cached keys at once. */
  async revokeKey({ key_id }: RevokeKeyRequest): Promise<RevokedKey> {
    await this.requireCurrentSchema();
    if (!(await this.repository.revokeKey(key_id))) throw new DomainError('not_found', `no key ${key_id}`);
    this.nc.publish(KEYS_CHANGED_SUBJECT, '');
    await this.nc.flush();
    return { id: key_id, revoked: true };
  }

  /**
   * This gateway migrated its database at start-up; a migration recorded as applied then and
   * missing now was reverted behind it (`migrate -- gateway revert`), and nothing is written
   * until this version's schema is back.
   */
  private async requireCurrentSchema(): Promise<void> {
    const applied = await this.repository.appliedMigrations();
    const missing = GATEWAY_MIGRATIONS.map((m) => m.name).filter((name) => !applied.has(name));
    if (missing.length === 0) return;
    const where = `${withoutCredentials(this.config.databaseUrl)} (${this.config.databaseSetting})`;
    throw new DomainError(
      'internal_error',
      `the gateway database at ${where} lacks ${missing.length} migration(s) of this version (${missing.join(', ')}): ` +
        'start the gateway once (it migrates its database at start-up) or run `npm run -s migrate -- gateway` (in an image: node dist/tools/migrate.js gateway)',
    );
  }

  private async requireWorkspace(id: string): Promise<WorkspaceEntity> {
    const workspace = await this.repository.findWorkspace(id);
    if (!workspace) throw new DomainError('not_found', `no workspace ${id}`);
    return workspace;
  }

  private async requireMember(workspaceId: string, id: string) {
    const member = await this.repository.findMember(workspaceId, id);
    if (!member) throw new DomainError('not_found', `no member ${id} in workspace ${workspaceId}`);
    return member;
  }
}

/** The schema has no CHECK on these columns: the CLI checks its flags, and this keeps any other operator tool from storing a value the code does not know. */
function oneOf(param: string, value: unknown, allowed: readonly string[]): void {
  if (typeof value !== 'string' || !allowed.includes(value)) throw DomainError.invalid(param, `--${param} must be one of ${allowed.join(', ')}`);
}
