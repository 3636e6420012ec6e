import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { EntityManager, Repository } from 'typeorm';
import { CountryRule, ListSequencesRequest, SequenceStats } from '@app/contracts';
import { keysetPage, PG_POOL, Queryable } from '@app/platform';
import { SequenceRow, StepRow } from './sequence.mapper';
import { CountryRuleEntity } from './country-rule.entity';
import { SequenceStepEntity } from './sequence-step.entity';
import { SequenceEntity } from './sequence.entity';

export type NewSequenceRow = Pick<SequenceRow, 'id' | 'workspace_id' | 'name' | 'lens' | 'mailbox_ids' | 'business_days_only'>;

/** Sequences, their steps and figures, and the workspace's country rules. */
@Injectable()
export class SequencesRepository {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @InjectRepository(SequenceEntity) private readonly rows: Repository<SequenceEntity>,
    @InjectRepository(CountryRuleEntity) private readonly countryRuleRows: Repository<CountryRuleEntity>,
  ) {}

  async findById(workspaceId: string, id: string): Promise<SequenceRow | undefined> {
    if (typeof id !== 'string') return undefined; // no such sequence (TypeORM refuses an undefined id)
    return (await this.rows.findOneBy({ workspace_id: workspaceId, id })) ?? undefined;
  }

  /** The workspace of a sequence, whatever workspace asks (the admin CLI names only the sequence). */
  async workspaceOf(id: string): Promise<string | undefined> {
    if (typeof id !== 'string') return undefined;
    const row = await this.rows.findOne({ select: { workspace_id: true }, where: { id } });
    return row?.workspace_id;
  }

  /** Newest first, keyset on the time-ordered id; fetches one extra row to learn `has_more`. */
  async list(workspaceId: string, query: ListSequencesRequest): Promise<SequenceRow[]> {
    return this.rows.find(
      keysetPage<SequenceEntity>({ workspace_id: workspaceId, ...(query.status !== undefined ? { status: query.status } : {}) }, query.starting_after, query.limit),
    );
  }

  /**
   * stepsOf: hand-written because the engine reads the steps on its claim transaction's own
   * connection (a pg client, not an entity manager).
   */
  async stepsOf(ids: string[], db: Queryable = this.pool): Promise<Map<string, StepRow[]>> {
    const { rows } = await db.query<StepRow>(
      'SELECT sequence_id, position, type, subject, body, wait_days FROM sequence_steps WHERE sequence_id = ANY($1) ORDER BY sequence_id, position',
      [ids],
    );
    const out = new Map<string, StepRow[]>();
    for (const row of rows) out.set(row.sequence_id, [...(out.get(row.sequence_id) ?? []), row]);
    return out;
  }

  /**
   * Exact counts, computed from the rows (never a cached counter). statsOf: hand-written, one
   * statement of correlated counts over enrollments and email_messages for a page of sequences.
   */
  async statsOf(ids: string[], db: Queryable = this.pool): Promise<Map<string, SequenceStats>> {
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

  /** A draft with its steps, in the caller's transaction. */
  async insert(manager: EntityManager, sequence: NewSequenceRow, steps: StepRow[]): Promise<SequenceRow> {
    const rows = manager.getRepository(SequenceEntity);
    await rows.insert(sequence);
    await manager.getRepository(SequenceStepEntity).insert(steps);
    return rows.findOneByOrFail({ id: sequence.id });
  }

  /** `active`, stamping `launched_at` the first time. */
  async markLaunched(id: string): Promise<void> {
    await this.rows.update({ id }, { status: 'active', paused_reason: null, launched_at: () => "coalesce(launched_at, date_trunc('milliseconds', now()))" });
  }

  async pauseManually(id: string): Promise<void> {
    await this.rows.update({ id, status: 'active' }, { status: 'paused', paused_reason: 'manual' });
  }

  async markResumed(id: string): Promise<void> {
    await this.rows.update({ id }, { status: 'active', paused_reason: null });
  }

  async setCountryRule(workspaceId: string, country: string, rule: CountryRule): Promise<void> {
    await this.countryRuleRows
      .createQueryBuilder()
      .insert()
      .values({ workspace_id: workspaceId, country, rule, updated_at: () => 'now()' })
      .orUpdate(['rule', 'updated_at'], ['workspace_id', 'country'])
      .execute();
  }

  /** The workspace's overrides of the default country rules, by country. */
  async countryRules(workspaceId: string): Promise<Map<string, CountryRule>> {
    const rows = await this.countryRuleRows.find({ select: { country: true, rule: true }, where: { workspace_id: workspaceId } });
    return new Map(rows.map((r) => [r.country, r.rule]));
  }
}
