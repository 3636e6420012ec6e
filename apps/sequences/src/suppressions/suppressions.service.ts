import { Inject, Injectable } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import {
  CreateSuppressionRequest, EVENT, ID_PREFIX, ListEnvelope, ListSuppressionsRequest, RequestContext, Suppression,
} from '@app/contracts';
import { containsPattern, decodeCursor, DomainError, newId, PG_POOL, Queryable, recordEvent, toListPage, withTransaction } from '@app/platform';
import { renderSuppression, SUPPRESSION_COLUMNS, SuppressionRow } from '../rows';
import { domainCandidates, normalizeDomain, normalizeEmail } from './matching';

/** SQL: whether `email_sql` (an address) is covered by suppression row `s`. */
export const COVERS_SQL = (s: string, emailSql: string) =>
  `((${s}.type = 'email' AND ${s}.value = lower(${emailSql})) OR (${s}.type = 'domain' AND (lower(split_part(${emailSql}, '@', 2)) = ${s}.value OR lower(split_part(${emailSql}, '@', 2)) LIKE '%.' || ${s}.value)))`;

@Injectable()
export class SuppressionsService {
  constructor(@Inject(PG_POOL) readonly pool: Pool) {}

  /** Workspace entries and global ones, newest first. */
  async list(ctx: RequestContext, query: ListSuppressionsRequest): Promise<ListEnvelope<Suppression>> {
    const params: unknown[] = [ctx.workspace_id];
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
    return toListPage(rows, query.limit, renderSuppression);
  }

  /**
   * Adds an entry (an existing identical entry is returned as it is) and applies it at once:
   * queued emails to covered addresses are cancelled and their active enrollments stop.
   */
  async create(ctx: RequestContext, body: CreateSuppressionRequest, stopReason: 'suppressed' | 'unsubscribed' = 'suppressed', announceTo: string[] = []): Promise<Suppression> {
    return withTransaction(this.pool, (tx) => this.createIn(tx, ctx, body, stopReason, announceTo));
  }

  /** `announceTo`: for a global `opt_out`, workspaces told besides those that had the address enrolled (the ones with it as a lead). */
  async createIn(tx: PoolClient, ctx: RequestContext, body: CreateSuppressionRequest, stopReason: 'suppressed' | 'unsubscribed', announceTo: string[] = []): Promise<Suppression> {
    const value = body.type === 'email' ? normalizeEmail(body.value) : normalizeDomain(body.value);
    const scope = body.scope ?? 'workspace';
    const workspaceId = scope === 'global' ? null : ctx.workspace_id;
    const inserted = await tx.query<SuppressionRow>(
      `INSERT INTO suppressions (id, workspace_id, scope, type, value, reason) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (coalesce(workspace_id, ''), type, value) DO NOTHING RETURNING ${SUPPRESSION_COLUMNS}`,
      [newId(ID_PREFIX.suppression), workspaceId, scope, body.type, value, body.reason],
    );
    let row = inserted.rows[0];
    if (!row) {
      const existing = await tx.query<SuppressionRow>(
        `SELECT ${SUPPRESSION_COLUMNS} FROM suppressions WHERE coalesce(workspace_id, '') = coalesce($1, '') AND type = $2 AND value = $3`,
        [workspaceId, body.type, value],
      );
      row = existing.rows[0];
      if (!row) throw DomainError.conflict('The suppression list changed concurrently; retry');
      return renderSuppression(row);
    }
    const suppression = renderSuppression(row);
    const covers = COVERS_SQL('s', 'e.email');
    const scopeClause = workspaceId ? 'AND e.workspace_id = s.workspace_id' : '';
    const stopped = await tx.query<{ id: string; workspace_id: string }>(
      `UPDATE enrollments e SET status = 'stopped', stop_reason = $2, stopped_at = date_trunc('milliseconds', now()), next_send_at = NULL
       FROM suppressions s WHERE s.id = $1 ${scopeClause} AND e.status IN ('active', 'paused') AND ${covers}
       RETURNING e.id, e.workspace_id`,
      [row.id, stopReason],
    );
    await tx.query(
      `UPDATE email_messages m SET status = 'cancelled', lease_until = NULL
       FROM suppressions s WHERE s.id = $1 AND m.status = 'queued' ${workspaceId ? 'AND m.workspace_id = s.workspace_id' : ''} AND ${COVERS_SQL('s', 'm.to_addr')}`,
      [row.id],
    );
    if (body.reason === 'unsubscribe' && workspaceId) {
      await recordEvent(tx, { type: EVENT.unsubscribeCreated, workspace_id: workspaceId, livemode: ctx.livemode, api_version: ctx.api_version, object: suppression });
    }
    if (scope === 'global' && body.reason === 'opt_out') {
      // every workspace that had the address enrolled, or as a lead (announceTo), learns of the opt-out: once each
      const { rows } = await tx.query<{ workspace_id: string }>(
        `SELECT e.workspace_id FROM enrollments e, suppressions s WHERE s.id = $1 AND ${covers}
         UNION SELECT unnest($2::text[]) ORDER BY 1`,
        [row.id, announceTo],
      );
      for (const { workspace_id } of rows) {
        await recordEvent(tx, { type: EVENT.unsubscribeCreated, workspace_id, livemode: true, api_version: ctx.api_version, object: suppression });
      }
    }
    void stopped;
    return suppression;
  }

  /** The emails among `emails` that a workspace or global entry covers (lower-cased). */
  async suppressedAmong(db: Queryable, workspaceId: string, emails: string[]): Promise<Set<string>> {
    if (emails.length === 0) return new Set();
    const lowered = emails.map(normalizeEmail);
    const domains = [...new Set(lowered.flatMap(domainCandidates))];
    const { rows } = await db.query<{ type: string; value: string }>(
      `SELECT type, value FROM suppressions WHERE (workspace_id = $1 OR workspace_id IS NULL)
         AND ((type = 'email' AND value = ANY($2)) OR (type = 'domain' AND value = ANY($3)))`,
      [workspaceId, lowered, domains],
    );
    const emailHits = new Set(rows.filter((r) => r.type === 'email').map((r) => r.value));
    const domainHits = new Set(rows.filter((r) => r.type === 'domain').map((r) => r.value));
    return new Set(lowered.filter((e) => emailHits.has(e) || domainCandidates(e).some((d) => domainHits.has(d))));
  }
}
