import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import { LeadContact, ListLeadsRequest, parseDateTime } from '@app/contracts';
import { DomainError, IdempotentCreate, OUTBOX_INSERT_SQL, PG_POOL, Queryable, ReadBatch, StatementEvent } from '@app/platform';
import { LeadFilter } from './lead-filter';
import { entryStageSql } from '../pipelines/pipelines.repository';
import { LEAD_COLUMNS, LEAD_LIST_COLUMNS, LeadRow } from './lead.mapper';

export type NewLeadRow = Omit<LeadRow, 'created_at' | 'updated_at' | 'sources'> & { sources: LeadRow['sources'] };
/** A new lead that lands on its workspace's entry stage (insertAtEntryStage reads it). */
export type NewLeadAtEntry = Omit<NewLeadRow, 'pipeline_id' | 'stage_id' | 'stage_name'>;

/**
 * A date-time filter as UTC ISO text: PostgreSQL refuses some offsets ISO 8601 allows, and a
 * malformed value must be a 400, never a database error.
 */
function instantOf(value: string, param: string): string {
  const instant = parseDateTime(value);
  if (!instant) throw DomainError.invalid(param, `${param} must be an ISO 8601 date-time with a time zone`);
  return instant.toISOString();
}

/** The insert of a new lead with its entry stage read by the CTE `entry` (entryStageSql); its values are leadValues. */
const INSERT_AT_ENTRY_SQL = `INSERT INTO leads (id, workspace_id, lens, first_name, last_name, full_name, full_name_derived, title, email,
         email_status, email_confidence, phone, website, company_id, company_name, country, revealed, lawful_basis,
         owner_id, tags, custom_fields, sources, pipeline_id, stage_id, stage_name)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,
         (SELECT pipeline_id FROM entry), (SELECT id FROM entry), (SELECT name FROM entry))`;

/** INSERT_AT_ENTRY_SQL's $1..$22. */
const leadValues = (lead: NewLeadAtEntry): unknown[] => [
  lead.id, lead.workspace_id, lead.lens, lead.first_name, lead.last_name, lead.full_name, lead.full_name_derived,
  lead.title, lead.email, lead.email_status, lead.email_confidence, lead.phone, lead.website, lead.company_id,
  lead.company_name, lead.country, lead.revealed, lead.lawful_basis, lead.owner_id, lead.tags,
  JSON.stringify(lead.custom_fields), JSON.stringify(lead.sources ?? []),
];

/** A lead's columns over `l` (a read that joins). */
const LEAD_COLUMNS_OF_L = LEAD_COLUMNS.split(/,\s*/).map((c) => `l.${c}`).join(', ');

/** Every query is scoped by workspace: a lead of another workspace does not exist here. */
@Injectable()
export class LeadsRepository implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly createKeys = new IdempotentCreate({ table: 'lead_create_keys', column: 'lead_id', noun: 'lead' });
  private stopSweeping?: () => void;

  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /**
   * Whether the lead exists in the workspace; inside a transaction it also stays so until the
   * transaction ends (KEY SHARE makes a concurrent DELETE of the lead wait). For the records that
   * hang on a lead: notes, tasks.
   */
  async lockLead(db: Queryable, workspaceId: string, leadId: string): Promise<boolean> {
    const { rowCount } = await db.query('SELECT 1 FROM leads WHERE workspace_id = $1 AND id = $2 FOR KEY SHARE', [workspaceId, leadId]);
    return rowCount === 1;
  }

  /** Which of `leadIds` are leads of the workspace, held as lockLead holds one (list members). */
  async lockLeads(db: Queryable, workspaceId: string, leadIds: string[]): Promise<Set<string>> {
    const { rows } = await db.query<{ id: string }>('SELECT id FROM leads WHERE workspace_id = $1 AND id = ANY($2::text[]) FOR KEY SHARE', [
      workspaceId,
      leadIds,
    ]);
    return new Set(rows.map((r) => r.id));
  }

  /** The lead's email status, its row locked, while it still has the address that bounced. */
  async lockWithAddress(tx: Queryable, workspaceId: string, leadId: string, email: string): Promise<Pick<LeadRow, 'email_status'> | undefined> {
    // hand-written: leads have no entity (the lead path is benchmarked); FOR UPDATE holds the row for the update below
    const { rows } = await tx.query<Pick<LeadRow, 'email_status'>>(
      'SELECT email_status FROM leads WHERE workspace_id = $1 AND id = $2 AND lower(email) = lower($3) FOR UPDATE',
      [workspaceId, leadId, email],
    );
    return rows[0];
  }

  /** Marks the lead's email invalid (a hard bounce) and returns the lead. */
  async markEmailInvalid(tx: Queryable, workspaceId: string, leadId: string): Promise<LeadRow> {
    // hand-written: UPDATE ... RETURNING gives the lead to render for lead.updated in the same statement
    const { rows } = await tx.query<LeadRow>(
      `UPDATE leads SET email_status = 'invalid', updated_at = date_trunc('milliseconds', now()) WHERE workspace_id = $1 AND id = $2 RETURNING ${LEAD_COLUMNS}`,
      [workspaceId, leadId],
    );
    return rows[0];
  }

  onApplicationBootstrap(): void {
    this.stopSweeping = this.createKeys.sweepPeriodically(this.pool);
  }

  onApplicationShutdown(): void {
    this.stopSweeping?.();
  }

  /**
   * A lead by id. Outside a transaction the reads asked in one turn of the event loop go to
   * PostgreSQL as one statement (ReadBatch): under load, one round trip for the GET /leads/{id}
   * requests that reached crm together instead of one each.
   */
  async findById(workspaceId: string, id: string, db: Queryable = this.pool, forUpdate = false): Promise<LeadRow | undefined> {
    if (db === this.pool && !forUpdate) return this.byId.load({ workspaceId, id });
    return this.findOne(workspaceId, id, db, forUpdate);
  }

  private readonly byId = new ReadBatch<{ workspaceId: string; id: string }, LeadRow>(
    (key) => this.findOne(key.workspaceId, key.id, this.pool, false),
    (keys) => this.findMany(keys),
  );

  /** The leads of `keys` (workspace and id), each at the index of its key; undefined where there is none. */
  private async findMany(keys: { workspaceId: string; id: string }[]): Promise<(LeadRow | undefined)[]> {
    // hand-written: one index probe per key (the join on the primary key), as many keys as the turn had
    const { rows } = await this.pool.query<LeadRow>({
      name: 'leads-by-ids',
      text: `SELECT ${LEAD_COLUMNS_OF_L} FROM unnest($1::text[], $2::text[]) AS k(workspace_id, id)
               JOIN leads l ON l.id = k.id AND l.workspace_id = k.workspace_id`,
      values: [keys.map((k) => k.workspaceId), keys.map((k) => k.id)],
    });
    const found = new Map(rows.map((row) => [`${row.workspace_id}\n${row.id}`, row]));
    return keys.map((k) => found.get(`${k.workspaceId}\n${k.id}`));
  }

  private async findOne(workspaceId: string, id: string, db: Queryable, forUpdate: boolean): Promise<LeadRow | undefined> {
    const { rows } = await db.query<LeadRow>({
      name: forUpdate ? 'lead-by-id-for-update' : 'lead-by-id',
      text: `SELECT ${LEAD_COLUMNS} FROM leads WHERE workspace_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
      values: [workspaceId, id],
    });
    return rows[0];
  }

  async findIdByEmail(workspaceId: string, email: string, db: Queryable = this.pool): Promise<string | undefined> {
    const { rows } = await db.query<{ id: string }>('SELECT id FROM leads WHERE workspace_id = $1 AND lower(email) = lower($2)', [
      workspaceId,
      email,
    ]);
    return rows[0]?.id;
  }

  /** The contact fields of the workspace's leads among `ids`, `updated_at` already in the API's form. */
  async contacts(workspaceId: string, ids: string[]): Promise<LeadContact[]> {
    const { rows } = await this.pool.query<LeadContact>(
      `SELECT id, email, email_status, first_name, last_name, full_name, title, company_name, country, lawful_basis,
              to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at
       FROM leads WHERE workspace_id = $1 AND id = ANY($2)`,
      [workspaceId, ids],
    );
    return rows;
  }

  /**
   * The workspaces with a lead at `email`, case-insensitively, across workspaces. An exact ILIKE
   * (wildcards escaped) so that the trigram index on email answers it.
   */
  async workspacesWithEmail(email: string): Promise<string[]> {
    const pattern = email.replace(/[\\%_]/g, (c) => `\\${c}`);
    const { rows } = await this.pool.query<{ workspace_id: string }>(
      `SELECT DISTINCT workspace_id FROM leads WHERE email ILIKE $1 AND lower(email) = lower($2) ORDER BY workspace_id`,
      [pattern, email],
    );
    return rows.map((r) => r.workspace_id);
  }

  /**
   * Serialises the reveal sagas of one workspace and email (or entity) until the transaction
   * ends, so concurrent or repeated sagas never make two leads.
   */
  async lockReveal(db: Queryable, workspaceId: string, identity: string): Promise<void> {
    await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`reveal:${workspaceId}:${identity.toLowerCase()}`]);
  }

  /**
   * Inserts a lead on the first stage of its workspace's default pipeline (none: no stage), the
   * stage read by the insert itself: one statement, prepared once per connection, where a stage
   * query and an insert were two round trips on every create.
   */
  async insertAtEntryStage(db: Queryable, lead: NewLeadAtEntry): Promise<LeadRow> {
    const { rows } = await db.query<LeadRow>({
      name: 'lead-insert-at-entry',
      text: `WITH entry AS (${entryStageSql('$2')})
       ${INSERT_AT_ENTRY_SQL}
       RETURNING ${LEAD_COLUMNS}`,
      values: leadValues(lead),
    });
    return rows[0];
  }

  /**
   * insertAtEntryStage and the lead's `lead.created` outbox row in one statement, committed on its
   * own: one round trip where a transaction took four (begin, insert, outbox, commit). The event's
   * lead was rendered before the insert (statementEvent) with markers for what only the insert
   * knows, its entry stage and its timestamps, which the statement writes in as JSON text the way
   * renderLead and JSON.stringify write them (`stage` null without a whole stage, ISO 8601 UTC
   * with milliseconds: the columns hold milliseconds). The caller wakes this process's relay once
   * it returns (the statement sends no NOTIFY).
   */
  async insertAtEntryStageWithEvent(lead: NewLeadAtEntry, event: StatementEvent): Promise<LeadRow> {
    const at = (column: string) => `to_json(to_char(l.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text`;
    const stage = `CASE WHEN l.pipeline_id IS NULL OR l.stage_id IS NULL OR l.stage_name IS NULL THEN 'null'
         ELSE '{"pipeline_id":' || to_json(l.pipeline_id)::text || ',"stage_id":' || to_json(l.stage_id)::text || ',"name":' || to_json(l.stage_name)::text || '}' END`;
    // hand-written: a data-modifying CTE per table, both run to completion in the statement's one transaction
    const { rows } = await this.pool.query<LeadRow>({
      name: 'lead-insert-at-entry-with-event',
      text: `WITH entry AS (${entryStageSql('$2')}),
       lead AS (${INSERT_AT_ENTRY_SQL} RETURNING ${LEAD_COLUMNS}),
       appended AS (${OUTBOX_INSERT_SQL}
         SELECT $23, $24, replace(replace(replace($25::text, $26, ${stage}), $27, ${at('created_at')}), $28, ${at('updated_at')})::json, $29::json
           FROM lead l)
       SELECT * FROM lead`,
      values: [...leadValues(lead), event.id, event.type, event.envelope, event.markers.stage, event.markers.created_at, event.markers.updated_at, event.traceContext],
    });
    return rows[0];
  }

  /** Writes the given columns and bumps updated_at. */
  async update(db: Queryable, workspaceId: string, id: string, changes: Partial<LeadRow>): Promise<LeadRow> {
    const columns = Object.keys(changes) as (keyof LeadRow)[];
    const values = columns.map((c) => (c === 'custom_fields' || c === 'sources' ? JSON.stringify(changes[c]) : changes[c]));
    const set = columns.map((c, i) => `${c} = $${i + 3}`).join(', ');
    const { rows } = await db.query<LeadRow>(
      `UPDATE leads SET ${set}${set ? ', ' : ''}updated_at = date_trunc('milliseconds', now()) WHERE workspace_id = $1 AND id = $2 RETURNING ${LEAD_COLUMNS}`,
      [workspaceId, id, ...values],
    );
    return rows[0];
  }

  async delete(db: Queryable, workspaceId: string, id: string): Promise<LeadRow | undefined> {
    const { rows } = await db.query<LeadRow>(`DELETE FROM leads WHERE workspace_id = $1 AND id = $2 RETURNING ${LEAD_COLUMNS}`, [
      workspaceId,
      id,
    ]);
    return rows[0];
  }

  /** Newest first, keyset on the time-ordered id; fetches one extra row to learn `has_more`. */
  async list(workspaceId: string, query: ListLeadsRequest): Promise<LeadRow[]> {
    const filter = new LeadFilter(workspaceId, {
      lens: query.lens,
      tag: query.tag,
      stage_id: query.stage_id,
      updated_since: query.updated_since === undefined ? undefined : instantOf(query.updated_since, 'updated_since'),
      q: query.q,
    }, query.starting_after);
    const sql = `SELECT ${LEAD_LIST_COLUMNS} FROM leads ${filter.page(query.limit)}`;
    return (await this.pool.query<LeadRow>(sql, filter.params)).rows;
  }

  /**
   * Creates the missing tags. Names are inserted in one fixed order: two creates naming the
   * same new tags in different orders would otherwise each hold a tag the other waits for
   * (a deadlock, which PostgreSQL breaks by failing one of them).
   */
  async ensureTags(db: Queryable, workspaceId: string, names: string[]): Promise<void> {
    if (names.length === 0) return;
    await db.query(
      'INSERT INTO tags (workspace_id, name) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING',
      [workspaceId, [...names].sort()],
    );
  }
}
