import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, FindOptionsWhere, ILike, IsNull, Repository } from 'typeorm';
import { ListSuppressionsRequest, StopReason } from '@app/contracts';
import { containsPattern, keysetPage, PG_POOL, Queryable } from '@app/platform';
import { SuppressionRow } from './suppression.mapper';
import { SuppressionEntity } from './suppression.entity';

/** SQL: whether `email_sql` (an address) is covered by suppression row `s`. */
const COVERS_SQL = (s: string, emailSql: string) =>
  `((${s}.type = 'email' AND ${s}.value = lower(${emailSql})) OR (${s}.type = 'domain' AND (lower(split_part(${emailSql}, '@', 2)) = ${s}.value OR lower(split_part(${emailSql}, '@', 2)) LIKE '%.' || ${s}.value)))`;

export type NewSuppressionRow = Pick<SuppressionRow, 'id' | 'workspace_id' | 'scope' | 'type' | 'value' | 'reason'>;

/**
 * Suppression entries (a workspace's, and global ones with no workspace) and what applying one
 * does to the enrollments and queued emails it covers. Coverage is matched in SQL (COVERS_SQL)
 * so an entry is applied to every covered row in one statement: those statements are written by
 * hand, on the pg client of the caller's transaction (which also writes the outbox).
 */
@Injectable()
export class SuppressionsRepository {
  constructor(
    @InjectRepository(SuppressionEntity) private readonly rows: Repository<SuppressionEntity>,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {}

  /** Workspace entries and global ones, newest first; one extra row to learn `has_more`. */
  async list(workspaceId: string, query: ListSuppressionsRequest): Promise<SuppressionRow[]> {
    const filters: FindOptionsWhere<SuppressionEntity> = {
      ...(query.type ? { type: query.type } : {}),
      ...(query.q ? { value: ILike(containsPattern(query.q.trim().toLowerCase())) } : {}),
    };
    return this.rows.find(keysetPage<SuppressionEntity>([{ ...filters, workspace_id: workspaceId }, { ...filters, workspace_id: IsNull() }], query.starting_after, query.limit));
  }

  /** The new entry, or undefined when an identical one exists (the unique index on workspace, type and value). */
  async insert(manager: EntityManager, entry: NewSuppressionRow): Promise<SuppressionRow | undefined> {
    const rows = manager.getRepository(SuppressionEntity);
    await rows.createQueryBuilder().insert().values(entry).orIgnore().execute();
    return (await rows.findOneBy({ id: entry.id })) ?? undefined;
  }

  async findEntry(manager: EntityManager, workspaceId: string | null, type: SuppressionRow['type'], value: string): Promise<SuppressionRow | undefined> {
    return (await manager.getRepository(SuppressionEntity).findOneBy({ workspace_id: workspaceId ?? IsNull(), type, value })) ?? undefined;
  }

  /** stopCoveredEnrollments: live enrollments the entry covers stop with `stopReason` (a workspace entry: its workspace's only). */
  async stopCoveredEnrollments(db: Queryable, entry: SuppressionRow, stopReason: Extract<StopReason, 'suppressed' | 'unsubscribed'>): Promise<void> {
    await db.query(
      `UPDATE enrollments e SET status = 'stopped', stop_reason = $2, stopped_at = date_trunc('milliseconds', now()), next_send_at = NULL
       FROM suppressions s WHERE s.id = $1 ${entry.workspace_id ? 'AND e.workspace_id = s.workspace_id' : ''} AND e.status IN ('active', 'paused') AND ${COVERS_SQL('s', 'e.email')}`,
      [entry.id, stopReason],
    );
  }

  /** cancelCoveredMessages: queued emails to addresses the entry covers are cancelled (a workspace entry: its workspace's only). */
  async cancelCoveredMessages(db: Queryable, entry: SuppressionRow): Promise<void> {
    await db.query(
      `UPDATE email_messages m SET status = 'cancelled', lease_until = NULL
       FROM suppressions s WHERE s.id = $1 AND m.status = 'queued' ${entry.workspace_id ? 'AND m.workspace_id = s.workspace_id' : ''} AND ${COVERS_SQL('s', 'm.to_addr')}`,
      [entry.id],
    );
  }

  /** workspacesEnrolling: every workspace that had an address the entry covers enrolled, and `others`: once each, in order. */
  async workspacesEnrolling(db: Queryable, entryId: string, others: string[]): Promise<string[]> {
    const { rows } = await db.query<{ workspace_id: string }>(
      `SELECT e.workspace_id FROM enrollments e, suppressions s WHERE s.id = $1 AND ${COVERS_SQL('s', 'e.email')}
       UNION SELECT unnest($2::text[]) ORDER BY 1`,
      [entryId, others],
    );
    return rows.map((r) => r.workspace_id);
  }

  /**
   * Entries of the workspace or global naming one of the (lower-cased) addresses or domains.
   * matching: hand-written because the engine asks on its claim transaction's own connection.
   */
  async matching(workspaceId: string, emails: string[], domains: string[], db: Queryable = this.pool): Promise<Pick<SuppressionRow, 'type' | 'value'>[]> {
    const { rows } = await db.query<Pick<SuppressionRow, 'type' | 'value'>>(
      `SELECT type, value FROM suppressions WHERE (workspace_id = $1 OR workspace_id IS NULL)
         AND ((type = 'email' AND value = ANY($2)) OR (type = 'domain' AND value = ANY($3)))`,
      [workspaceId, emails, domains],
    );
    return rows;
  }
}
