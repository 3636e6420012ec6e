import { KeyMode, Lens, MemberRole, Plan } from '../enums';
import { ApiVersion } from '../versions';

/** gateway.workspaces.create (operator): a workspace, its owner, and the credits billing opens it with. */
export interface CreateWorkspaceRequest {
  name: string;
  plan: Plan;
  lenses: Lens[];
  plan_credits: number;
  pack_credits: number;
}

export interface CreatedWorkspace {
  id: string;
  owner_id: string;
  plan: Plan;
  /**
   * `open`: billing holds the workspace's credit account (its opening credits are spendable now);
   * `pending`: billing did not answer in time (stopped, or slow), and opens the account from the
   * `workspace.created` event when it can; until then a charge finds no account.
   */
  credit_account: 'open' | 'pending';
}

/**
 * How long gateway.workspaces.create waits for billing to open the credit account before it answers
 * `credit_account: 'pending'` (the event opens it later): well inside the operator's own deadline.
 */
export const OPEN_ACCOUNT_WAIT_MS = 5_000;

/** billing.accounts.open (the gateway, creating a workspace): the opening `workspace.created` carries. */
export type OpenAccountRequest = Pick<CreateWorkspaceRequest, 'plan' | 'plan_credits' | 'pack_credits'> & { workspace_id: string };

export interface OpenedAccount {
  workspace_id: string;
  /** false: the account was already open (the event came first); nothing was granted again. */
  opened: boolean;
}

/** gateway.members.add (operator). */
export interface AddMemberRequest {
  workspace_id: string;
  role: MemberRole;
}

export interface AddedMember {
  id: string;
  workspace_id: string;
  role: MemberRole;
}

/** gateway.members.context (operator): who a member is, for a request made as that member (the owner when no member is given). */
export interface MemberContextRequest {
  workspace_id: string;
  member_id?: string;
}

export interface MemberContext {
  workspace_id: string;
  member_id: string;
  member_role: MemberRole;
  owner_id: string;
  plan: Plan;
  lenses: Lens[];
}

/** gateway.keys.create (operator): a key acting as the member given, else the owner. */
export interface CreateKeyRequest {
  workspace_id: string;
  mode: KeyMode;
  name: string | null;
  member_id?: string;
}

/** The only time the key itself is shown. */
export interface CreatedKey {
  id: string;
  key: string;
  mode: KeyMode;
  api_version: ApiVersion;
}

/** gateway.keys.revoke (operator). */
export interface RevokeKeyRequest {
  key_id: string;
}

export interface RevokedKey {
  id: string;
  revoked: true;
}
