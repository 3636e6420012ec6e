import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import { CountryRule, ListSequencesRequest, SequenceStats } from '@app/contracts';
import { ListFilter, PG_POOL, Queryable } from '@app/platform';
import { SEQUENCE_COLUMNS, SequenceRow, StepRow } from '../rows';

export type NewSequenceRow = Pick<SequenceRow, 'id' | 'workspace_id' | 'name' | 'lens' | 'mailbox_ids' | 'business_days_only'>;

/** Sequences, their steps and figures, and the workspace's country rules. */
@Injectable()
export class SequencesRepository {
  constructor(@Inject(PG_POOL) readonly pool: Pool) {}

  async findById(db: Queryable, workspaceId: string, id: string): Promise<SequenceRow | undefined> {
    const { rows } = await db.query<SequenceRow>(
      `SELECT ${SEQUENCE_COLUMNS} FROM sequences WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
    );
    return rows[0];
  }

  /** The workspace of a sequence, whatever workspace asks (the admin CLI names only the sequence). */
  async workspaceOf(id: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ workspace_id: string }>('SELECT workspace_id FROM sequences WHERE id = $1', [id]);
    return rows[0]?.workspace_id;
  }

  /** Newest first, keyset on the time-ordered id; fetches one extra row to learn `has_more`. */
  async list(workspaceId: string, query: ListSequencesRequest): Promise<SequenceRow[]> {
    const filter = new ListFilter(workspaceId, query.starting_after).add((p) => `status = ${p}`, query.status);
    return (await this.pool.query<SequenceRow>(`SELECT ${SEQUENCE_COLUMNS} FROM sequences ${filter.page(query.limit)}`, filter.params)).rows;
  }

  /** The steps of each sequence, in position order. */
  async stepsOf(db: Queryable, ids: string[]): Promise<Map<string, StepRow[]>> {
    const { rows } = await db.query<StepRow>(
      'SELECT sequence_id, position, type, subject, body, wait_days FROM sequence_steps WHERE sequence_id = ANY($1) ORDER BY sequence_id, position',
      [ids],
    );
    const out = new Map<string, StepRow[]>();
    for (const row of rows) out.set(row.sequence_id, [...(out.get(row.sequence_id) ?? []), row]);
    return out;
  }

  /** Exact counts, computed from the rows (never a cached counter). */
  async statsOf(db: Queryable, ids: string[]): Promise<Map<string, SequenceStats>> {
    const { rows } = await db.query<SequenceStats & { sequence_id: string }>(
      `SELECT s.id AS sequence_id,
         (SELECT count(*)::int FROM enrollments e WHERE e.sequence_id = s.id) AS enrolled,
         (SELECT count(*)::int FROM enrollments e WHERE e.sequence_id = s.id AND e.status IN ('active', 'paused')) AS active,
         (SELECT count(*)::int FROM email_messages m WHERE m.sequence_id = s.id AND m.direction = 'outbound' AND m.status IN ('sent', 'bounced')) AS sent,
         (SELECT count(*)::int FROM enrollments e WHERE e.sequence_id = s.id AND coalesce(e.ended_before_removal, e.stop_reason) = 'replied') AS replied,
         (SELECT count(*)::int FROM email_messages m WHERE m.sequence_id = s.id AND m.direction = 'outbound' AND m.status = 'bounced') AS bounced,
         (SELECT count(*)::int FROM enrollments e WHERE e.sequence_id = s.id AND coalesce(e.ended_before_removal, e.stop_reason) = 'unsubscribed') AS unsubscribed
       FROM sequences s WHERE s.id = ANY($1)`,
      [ids],
    );
    return new Map(rows.map(({ sequence_id, ...stats }) => [sequence_id, stats]));
  }

  async insert(db: Queryable, sequence: NewSequenceRow): Promise<SequenceRow> {
    const { rows } = await db.query<SequenceRow>(
      `INSERT INTO sequences (id, workspace_id, name, lens, mailbox_ids, business_days_only) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${SEQUENCE_COLUMNS}`,
      [sequence.id, sequence.workspace_id, sequence.name, sequence.lens, sequence.mailbox_ids, sequence.business_days_only],
    );
    return rows[0];
  }

  async insertStep(db: Queryable, step: StepRow): Promise<void> {
    await db.query('INSERT INTO sequence_steps (sequence_id, position, type, subject, body, wait_days) VALUES ($1, $2, $3, $4, $5, $6)', [
      step.sequence_id, step.position, step.type, step.subject, step.body, step.wait_days,
    ]);
  }

  /** `active`, stamping `launched_at` the first time. */
  async markLaunched(id: string): Promise<void> {
    await this.pool.query(
      `UPDATE sequences SET status = 'active', paused_reason = NULL, launched_at = coalesce(launched_at, date_trunc('milliseconds', now())) WHERE id = $1`,
      [id],
    );
  }

  async pauseManually(id: string): Promise<void> {
    await this.pool.query(`UPDATE sequences SET status = 'paused', paused_reason = 'manual' WHERE id = $1 AND status = 'active'`, [id]);
  }

  async markResumed(id: string): Promise<void> {
    await this.pool.query(`UPDATE sequences SET status = 'active', paused_reason = NULL WHERE id = $1`, [id]);
  }

  async setCountryRule(workspaceId: string, country: string, rule: CountryRule): Promise<void> {
    await this.pool.query(
      `INSERT INTO country_rules (workspace_id, country, rule) VALUES ($1, $2, $3)
       ON CONFLICT (workspace_id, country) DO UPDATE SET rule = EXCLUDED.rule, updated_at = now()`,
      [workspaceId, country, rule],
    );
  }

  /** The workspace's overrides of the default country rules, by country. */
  async countryRules(workspaceId: string): Promise<Map<string, CountryRule>> {
    const { rows } = await this.pool.query<{ country: string; rule: CountryRule }>('SELECT country, rule FROM country_rules WHERE workspace_id = $1', [workspaceId]);
    return new Map(rows.map((r) => [r.country, r.rule]));
  }
}
