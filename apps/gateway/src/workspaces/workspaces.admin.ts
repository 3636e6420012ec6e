import { Pool } from 'pg';
import {
  CURRENT_API_VERSION, EVENT, ID_PREFIX, KeyMode, Lens, MemberRole, Plan, WorkspaceCreatedData,
} from '@app/contracts';
import { withTransaction } from '@app/platform/db';
import { recordEvent } from '@app/platform/events';
import { newId } from '@app/platform/ids';
import { generateApiKey, hashApiKey } from '../auth/api-key';

export interface CreateWorkspaceInput {
  name: string;
  plan: Plan;
  lenses: Lens[];
  planCredits: number;
  packCredits: number;
}

export class AdminError extends Error {}

/**
 * The application side of workspaces and keys (the public API leaves it out): used by the
 * admin CLI, writing the gateway's own database.
 */
export class WorkspacesAdmin {
  constructor(private readonly pool: Pool) {}

  /** Creates the workspace and its owner; billing opens the credit account from the event. */
  async createWorkspace(input: CreateWorkspaceInput): Promise<{ id: string; owner_id: string; plan: Plan }> {
    const id = newId(ID_PREFIX.workspace);
    const ownerId = newId(ID_PREFIX.member);
    await withTransaction(this.pool, async (tx) => {
      await tx.query('INSERT INTO workspaces (id, name, plan, lenses, owner_id) VALUES ($1, $2, $3, $4, $5)', [
        id, input.name, input.plan, input.lenses, ownerId,
      ]);
      await tx.query(`INSERT INTO members (id, workspace_id, role) VALUES ($1, $2, 'owner')`, [ownerId, id]);
      await recordEvent<WorkspaceCreatedData>(tx, {
        type: EVENT.workspaceCreated,
        workspace_id: id,
        livemode: true,
        api_version: CURRENT_API_VERSION,
        object: { workspace_id: id, plan: input.plan, plan_credits: input.planCredits, pack_credits: input.packCredits },
      });
    });
    return { id, owner_id: ownerId, plan: input.plan };
  }

  async addMember(workspaceId: string, role: MemberRole): Promise<{ id: string; workspace_id: string; role: MemberRole }> {
    await this.requireWorkspace(workspaceId);
    const id = newId(ID_PREFIX.member);
    await this.pool.query('INSERT INTO members (id, workspace_id, role) VALUES ($1, $2, $3)', [id, workspaceId, role]);
    return { id, workspace_id: workspaceId, role };
  }

  async createKey(workspaceId: string, mode: KeyMode, name: string | null, memberId?: string) {
    const workspace = await this.requireWorkspace(workspaceId);
    const member = memberId ?? workspace.owner_id;
    const { rowCount } = await this.pool.query('SELECT 1 FROM members WHERE id = $1 AND workspace_id = $2', [member, workspaceId]);
    if (rowCount !== 1) throw new AdminError(`no member ${member} in workspace ${workspaceId}`);
    const key = generateApiKey(mode);
    const id = newId(ID_PREFIX.apiKey);
    await this.pool.query(
      'INSERT INTO api_keys (id, workspace_id, member_id, name, mode, key_hash, last4, api_version) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)',
      [id, workspaceId, member, name, mode, hashApiKey(key), key.slice(-4), CURRENT_API_VERSION],
    );
    return { id, key, mode, api_version: CURRENT_API_VERSION };
  }

  async revokeKey(keyId: string): Promise<{ id: string; revoked: true }> {
    const { rowCount } = await this.pool.query('UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1', [keyId]);
    if (rowCount !== 1) throw new AdminError(`no key ${keyId}`);
    return { id: keyId, revoked: true };
  }

  private async requireWorkspace(id: string): Promise<{ owner_id: string }> {
    const { rows } = await this.pool.query<{ owner_id: string }>('SELECT owner_id FROM workspaces WHERE id = $1', [id]);
    if (!rows[0]) throw new AdminError(`no workspace ${id}`);
    return rows[0];
  }
}
