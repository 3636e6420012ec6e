import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { ListSuppressionsRequest, StopReason } from '@app/contracts';
import { containsPattern, decodeCursor, PG_POOL, Queryable } from '@app/platform';
import { SUPPRESSION_COLUMNS, SuppressionRow } from '../rows';

/** SQL: whether `email_sql` (an address) is covered by suppression row `s`. */
const COVERS_SQL = (s: string, emailSql: string) =>
  `((${s}.type = 'email' AND ${s}.value = lower(${emailSql})) OR (${s}.type = 'domain' AND (lower(split_part(${emailSql}, '@', 2)) = ${s}.value OR lower(split_part(${emailSql}, '@', 2)) LIKE '%.' || ${s}.value)))`;

export type NewSuppressionRow = Pick<SuppressionRow, 'id' | 'workspace_id' | 'scope' | 'type' | 'value' | 'reason'>;

/**
 * Suppression entries (a workspace's, and global ones with no workspace) and what applying one
 * does to the enrollments and queued emails it covers. Coverage is matched in SQL (COVERS_SQL)
 * so an entry is applied to every covered row in one statement.
 */
@Injectable()
export class SuppressionsRepository {
  constructor(@Inject(PG_POOL) readonly pool: Pool) {}

  /** Workspace entries and global ones, newest first; one extra row to learn `has_more`. */
  async list(workspaceId: string, query: ListSuppressionsRequest): Promise<SuppressionRow[]> {
    const params: unknown[] = [workspaceId];
    const where = ['(workspace_id = $1 OR workspace_id IS NULL)'];
    const add = (clause: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(clause(`$${params.length}`));
    };
    if (query.starting_after) add((p) => `id < ${p}`, decodeCursor(query.starting_after));
    if (query.type) add((p) => `type = ${p}`, query.type);
    if (query.q) add((p) => `value ILIKE ${p}`, containsPattern(query.q.trim().toLowerCase()));
    params.push(query.limit + 1);
    const { rows } = await this.pool.query<SuppressionRow>(
      `SELECT ${SUPPRESSION_COLUMNS} FROM suppressions WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    return rows;
  }

  /** The new entry, or undefined when an identical one exists. */
  async insert(db: Queryable, entry: NewSuppressionRow): Promise<SuppressionRow | undefined> {
    const { rows } = await db.query<SuppressionRow>(
      `INSERT INTO suppressions (id, workspace_id, scope, type, value, reason) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (coalesce(workspace_id, ''), type, value) DO NOTHING RETURNING ${SUPPRESSION_COLUMNS}`,
      [entry.id, entry.workspace_id, entry.scope, entry.type, entry.value, entry.reason],
    );
    return rows[0];
  }

  async findEntry(db: Queryable, workspaceId: string | null, type: SuppressionRow['type'], value: string): Promise<SuppressionRow | undefined> {
    const { rows } = await db.query<SuppressionRow>(
      `SELECT ${SUPPRESSION_COLUMNS} FROM suppressions WHERE coalesce(workspace_id, '') = coalesce($1, '') AND type = $2 AND value = $3`,
      [workspaceId, type, value],
    );
    return rows[0];
  }

  /** Live enrollments the entry covers stop with `stopReason` (a workspace entry: its workspace's only). */
  async stopCoveredEnrollments(db: Queryable, entry: SuppressionRow, stopReason: Extract<StopReason, 'suppressed' | 'unsubscribed'>): Promise<void> {
    await db.query(
      `UPDATE enrollments e SET status = 'stopped', stop_reason = $2, stopped_at = date_trunc('milliseconds', now()), next_send_at = NULL
       FROM suppressions s WHERE s.id = $1 ${entry.workspace_id ? 'AND e.workspace_id = s.workspace_id' : ''} AND e.status IN ('active', 'paused') AND ${COVERS_SQL('s', 'e.email')}`,
      [entry.id, stopReason],
    );
  }

  /** Queued emails to addresses the entry covers are cancelled (a workspace entry: its workspace's only). */
  async cancelCoveredMessages(db: Queryable, entry: SuppressionRow): Promise<void> {
    await db.query(
      `UPDATE email_messages m SET status = 'cancelled', lease_until = NULL
       FROM suppressions s WHERE s.id = $1 AND m.status = 'queued' ${entry.workspace_id ? 'AND m.workspace_id = s.workspace_id' : ''} AND ${COVERS_SQL('s', 'm.to_addr')}`,
      [entry.id],
    );
  }

  /** Every workspace that had an address the entry covers enrolled, and `others`: once each, in order. */
  async workspacesEnrolling(db: Queryable, entryId: string, others: string[]): Promise<string[]> {
    const { rows } = await db.query<{ workspace_id: string }>(
      `SELECT e.workspace_id FROM enrollments e, suppressions s WHERE s.id = $1 AND ${COVERS_SQL('s', 'e.email')}
       UNION SELECT unnest($2::text[]) ORDER BY 1`,
      [entryId, others],
    );
    return rows.map((r) => r.workspace_id);
  }

  /** Entries of the workspace or global naming one of the (lower-cased) addresses or domains. */
  async matching(db: Queryable, workspaceId: string, emails: string[], domains: string[]): Promise<Pick<SuppressionRow, 'type' | 'value'>[]> {
    const { rows } = await db.query<Pick<SuppressionRow, 'type' | 'value'>>(
      `SELECT type, value FROM suppressions WHERE (workspace_id = $1 OR workspace_id IS NULL)
         AND ((type = 'email' AND value = ANY($2)) OR (type = 'domain' AND value = ANY($3)))`,
      [workspaceId, emails, domains],
    );
    return rows;
  }
}
