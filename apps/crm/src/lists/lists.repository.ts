import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { LeadList } from '@app/contracts';
import { PG_POOL, Queryable } from '@app/platform';

export interface ListRow {
  id: string;
  workspace_id: string;
  name: string;
  member_count: number;
  created_at: Date;
}

export function renderList(row: ListRow): LeadList {
  return { id: row.id, object: 'list', name: row.name, member_count: row.member_count, created_at: row.created_at.toISOString() };
}

/**
 * Lists and their members. Every query is scoped by workspace; a member is always a lead of
 * its list's workspace (the service checks it while holding the leads), and leaves with its
 * lead (ON DELETE CASCADE).
 */
@Injectable()
export class ListsRepository {
  constructor(@Inject(PG_POOL) readonly pool: Pool) {}

  async insert(db: Queryable, list: Pick<ListRow, 'id' | 'workspace_id' | 'name'>): Promise<ListRow> {
    const { rows } = await db.query<ListRow>(
      `INSERT INTO lists (id, workspace_id, name) VALUES ($1, $2, $3) RETURNING id, workspace_id, name, 0 AS member_count, created_at`,
      [list.id, list.workspace_id, list.name],
    );
    return rows[0];
  }

  /**
   * The list; `lockForChange` (inside a transaction) makes other membership changes of the list
   * wait, so the member count a change answers is the count that change left.
   */
  async findById(db: Queryable, workspaceId: string, id: string, lockForChange = false): Promise<Omit<ListRow, 'member_count'> | undefined> {
    const { rows } = await db.query<Omit<ListRow, 'member_count'>>(
      `SELECT id, workspace_id, name, created_at FROM lists WHERE workspace_id = $1 AND id = $2${lockForChange ? ' FOR NO KEY UPDATE' : ''}`,
      [workspaceId, id],
    );
    return rows[0];
  }

  async countMembers(db: Queryable, listId: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM list_members WHERE list_id = $1', [listId]);
    return rows[0].n;
  }

  /** The workspace of a list, whatever it is (the admin CLI names only the list). */
  async workspaceOf(id: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ workspace_id: string }>('SELECT workspace_id FROM lists WHERE id = $1', [id]);
    return rows[0]?.workspace_id;
  }

  /**
   * Which of `leadIds` are leads of the workspace; inside a transaction they also stay so until
   * it ends (KEY SHARE makes a concurrent DELETE of such a lead wait).
   */
  async lockLeads(db: Queryable, workspaceId: string, leadIds: string[]): Promise<Set<string>> {
    const { rows } = await db.query<{ id: string }>('SELECT id FROM leads WHERE workspace_id = $1 AND id = ANY($2::text[]) FOR KEY SHARE', [
      workspaceId,
      leadIds,
    ]);
    return new Set(rows.map((r) => r.id));
  }

  /** Adds the leads that are not members yet; how many were added. */
  async addMembers(db: Queryable, listId: string, leadIds: string[]): Promise<number> {
    const { rowCount } = await db.query(
      'INSERT INTO list_members (list_id, lead_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING',
      [listId, leadIds],
    );
    return rowCount ?? 0;
  }

  /** Removes the leads that are members; how many were removed. */
  async removeMembers(db: Queryable, listId: string, leadIds: string[]): Promise<number> {
    const { rowCount } = await db.query('DELETE FROM list_members WHERE list_id = $1 AND lead_id = ANY($2::text[])', [listId, leadIds]);
    return rowCount ?? 0;
  }
}
