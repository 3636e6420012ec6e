import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Pool } from 'pg';
import Cursor from 'pg-cursor';
import { IsNull, Not, Raw, Repository } from 'typeorm';
import { EXPORT_COLUMNS, ExportFilter, ExportFormat } from '@app/contracts';
import { backlogGauge, PG_POOL } from '@app/platform';
import { LeadFilter } from '../leads/lead-filter';
import { ExportEntity } from './export.entity';
import { EXPORT_COLUMNS_SQL, ExportRow } from './export.mapper';

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The value of each export column as text, as SQL over `leads`; `tags` differs per format. */
const COLUMN_SQL: Record<(typeof EXPORT_COLUMNS)[number], string> = {
  id: 'id',
  full_name: 'full_name',
  first_name: 'first_name',
  last_name: 'last_name',
  title: 'title',
  // only revealed contact fields leave the CRM
  email: 'CASE WHEN revealed THEN email END',
  phone: 'CASE WHEN revealed THEN phone END',
  company_name: 'company_name',
  website: 'website',
  country: 'country',
  lens: 'lens',
  tags: `array_to_string(tags, ';')`,
  stage: 'stage_name',
  lawful_basis: 'lawful_basis',
  created_at: ISO('created_at'),
  updated_at: ISO('updated_at'),
};

/** The SELECT list of a CSV export: one text column per export column, in order. */
export function csvSelectList(): string {
  return EXPORT_COLUMNS.map((c) => COLUMN_SQL[c]).join(', ');
}

/** The SELECT list of a JSON export: one column holding the row's JSON object. */
export function jsonSelectList(): string {
  const pairs = EXPORT_COLUMNS.map((c) => `'${c}', ${c === 'tags' ? 'tags' : COLUMN_SQL[c]}`);
  // json_build_object takes at most 100 arguments; 16 pairs are 32
  return `json_build_object(${pairs.join(', ')})::text`;
}

/** An export's query: the leads its filter selects (LeadFilter, as the lead list), oldest first (ids sort by creation time). */
export function exportQuery(workspaceId: string, filter: ExportFilter, format: ExportFormat): { text: string; values: unknown[] } {
  const where = new LeadFilter(workspaceId, filter);
  const select = format === 'csv' ? csvSelectList() : jsonSelectList();
  return { text: `SELECT ${select} FROM leads ${where.where()} ORDER BY id`, values: where.params };
}

export interface NewExport {
  id: string;
  workspace_id: string;
  livemode: boolean;
  format: ExportFormat;
  filter: ExportFilter;
  request_id: string;
  idempotency_key: string | null;
  request_hash: string | null;
}

/**
 * The exports table is the job queue: `queued` and `processing` rows whose lease
 * (`locked_until`) has passed are claimable; a claim takes one with `FOR UPDATE SKIP LOCKED`,
 * so replicas never take the same job, and a job whose worker died (no heartbeat extended its
 * lease) is claimed again. Every claim is logged in export_attempts, whose key (export,
 * attempt) also proves no attempt ran twice. Those statements (claim, heartbeat and the fenced
 * writes that end an attempt) are hand-written: each is one statement over both tables, and the
 * claim needs FOR UPDATE SKIP LOCKED. Creating, reading and sweeping jobs go through TypeORM.
 */
@Injectable()
export class ExportsRepository {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @InjectRepository(ExportEntity) private readonly exports: Repository<ExportEntity>,
  ) {}

  /** Inserts the job; with an idempotency key already used, returns the earlier job instead. */
  async insert(job: NewExport): Promise<{ row: ExportEntity; created: boolean }> {
    if (job.idempotency_key) {
      // keys matter for 24 hours, like the gateway's records: an older use no longer binds the key
      await this.exports.update(
        { workspace_id: job.workspace_id, idempotency_key: job.idempotency_key, created_at: Raw((column) => `${column} < now() - interval '24 hours'`) },
        { idempotency_key: null, request_hash: null },
      );
    }
    // a key in use leaves the insert undone (ON CONFLICT DO NOTHING on exports_idempotency): the earlier job answers.
    // The row is the one RETURNING gives: `filter` as jsonb orders its keys, as every later read shows it.
    const { raw } = await this.exports.createQueryBuilder().insert().values(this.exports.create(job)).orIgnore().returning('*').updateEntity(false).execute();
    const [inserted] = raw as Partial<ExportEntity>[];
    if (inserted) return { row: this.exports.create(inserted), created: true };
    const earlier = await this.exports.findOneByOrFail({ workspace_id: job.workspace_id, idempotency_key: job.idempotency_key ?? IsNull() });
    return { row: earlier, created: false };
  }

  /** Hand-written: a named prepared statement, as clients poll GET /exports/{id} until the job completes. */
  async findById(workspaceId: string, id: string): Promise<(ExportRow & { request_hash: string | null }) | undefined> {
    const { rows } = await this.pool.query<ExportRow & { request_hash: string | null }>({
      name: 'export-by-id',
      text: `SELECT ${EXPORT_COLUMNS_SQL}, request_hash FROM exports WHERE workspace_id = $1 AND id = $2`,
      values: [workspaceId, id],
    });
    return rows[0];
  }

  /** `exports_queued` at each scrape: the queue is shared by every replica, each reports it (aggregate with max). */
  observeBacklog(): void {
    backlogGauge('exports_queued', 'Exports waiting for a worker (status queued)', this.pool, `SELECT count(*) AS n FROM exports WHERE status = 'queued'`);
  }

  /**
   * Runs `read` on a server-side cursor (rows as arrays of text) over the leads the export
   * selects, on a connection of the pool held for the read. A read that fails leaves the portal
   * perhaps mid-read: that connection is not reused.
   */
  async withLeadCursor<T>(workspaceId: string, filter: ExportFilter, format: ExportFormat, read: (cursor: Cursor) => Promise<T>): Promise<T> {
    const { text, values } = exportQuery(workspaceId, filter, format);
    const client = await this.pool.connect();
    let broken = false;
    try {
      const cursor = client.query(new Cursor(text, values, { rowMode: 'array' }));
      let result: T;
      try {
        result = await read(cursor);
      } catch (err) {
        broken = true;
        throw err;
      }
      await cursor.close();
      return result;
    } finally {
      client.release(broken);
    }
  }

  /** A completed export's file, whatever its workspace (the caller holds a signed link). */
  async findFile(id: string): Promise<ExportEntity | undefined> {
    return (await this.exports.findOneBy({ id, status: 'completed', file_key: Not(IsNull()) })) ?? undefined;
  }

  /**
   * Takes the oldest claimable job for `workerId` for `leaseMs`: status `processing`, one more
   * attempt, logged. Null when there is none.
   */
  async claim(workerId: string, leaseMs: number, maxAttempts: number): Promise<ExportRow | null> {
    const { rows } = await this.pool.query<ExportRow>(
      `WITH next AS (
         SELECT id FROM exports
         WHERE status IN ('queued', 'processing') AND coalesce(locked_until, '-infinity') <= now() AND attempts < $3
         ORDER BY created_at, id
         LIMIT 1
         FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE exports e
         SET status = 'processing', attempts = e.attempts + 1, locked_by = $1,
             locked_until = now() + make_interval(secs => $2::double precision / 1000),
             started_at = coalesce(e.started_at, date_trunc('milliseconds', now())), error = NULL
         FROM next WHERE e.id = next.id
         RETURNING e.*
       ), logged AS (
         INSERT INTO export_attempts (export_id, attempt, worker_id) SELECT id, attempts, locked_by FROM claimed
       )
       SELECT ${EXPORT_COLUMNS_SQL} FROM claimed`,
      [workerId, leaseMs, maxAttempts],
    );
    return rows[0] ?? null;
  }

  /** Jobs out of attempts whose last worker vanished: `failed`, kept with the reason. */
  async failExhausted(maxAttempts: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `UPDATE exports
       SET status = 'failed', locked_by = NULL, locked_until = NULL,
           error = coalesce(error, 'the worker running attempt ' || attempts || ' stopped before finishing')
       WHERE status IN ('queued', 'processing') AND coalesce(locked_until, '-infinity') <= now() AND attempts >= $1`,
      [maxAttempts],
    );
    return rowCount ?? 0;
  }

  /** Extends the lease while this worker still holds this attempt; false when it lost it. */
  async heartbeat(job: ExportRow, workerId: string, leaseMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE exports SET locked_until = now() + make_interval(secs => $4::double precision / 1000)
       WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND status = 'processing'`,
      [job.id, workerId, job.attempts, leaseMs],
    );
    return rowCount === 1;
  }

  /** Marks the attempt's outcome `completed`; false when this worker no longer held the job. */
  async complete(job: ExportRow, workerId: string, rowCount: number, fileKey: string): Promise<boolean> {
    const result = await this.pool.query(
      `WITH done AS (
         UPDATE exports
         SET status = 'completed', row_count = $4, file_key = $5, locked_by = NULL, locked_until = NULL, error = NULL,
             completed_at = date_trunc('milliseconds', now()),
             expires_at = date_trunc('second', now()) + interval '24 hours'
         WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND status = 'processing'
         RETURNING id
       )
       UPDATE export_attempts SET finished_at = now(), outcome = 'completed', row_count = $4
       WHERE export_id = $1 AND attempt = $3 AND EXISTS (SELECT 1 FROM done)
       RETURNING 1`,
      [job.id, workerId, job.attempts, rowCount, fileKey],
    );
    return result.rowCount === 1;
  }

  /**
   * An attempt that failed: back to `queued` after `retryDelayMs` while attempts remain,
   * otherwise `failed` with the error (the job is kept).
   */
  async fail(job: ExportRow, workerId: string, error: string, maxAttempts: number, retryDelayMs: number): Promise<void> {
    await this.pool.query(
      `WITH failed AS (
         UPDATE exports
         SET status = CASE WHEN attempts >= $5 THEN 'failed' ELSE 'queued' END,
             locked_by = NULL,
             locked_until = CASE WHEN attempts >= $5 THEN NULL ELSE now() + make_interval(secs => $6::double precision / 1000) END,
             error = $4
         WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND status = 'processing'
         RETURNING id
       )
       UPDATE export_attempts SET finished_at = now(), outcome = 'failed', error = $4
       WHERE export_id = $1 AND attempt = $3 AND EXISTS (SELECT 1 FROM failed)`,
      [job.id, workerId, job.attempts, error.slice(0, 1000), maxAttempts, retryDelayMs],
    );
  }

  /** A job given back on shutdown: queued again, the interrupted attempt not counted. */
  async release(job: ExportRow, workerId: string): Promise<void> {
    await this.pool.query(
      `WITH released AS (
         UPDATE exports SET status = 'queued', attempts = attempts - 1, locked_by = NULL, locked_until = NULL
         WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND status = 'processing'
         RETURNING id
       )
       DELETE FROM export_attempts WHERE export_id = $1 AND attempt = $3 AND EXISTS (SELECT 1 FROM released)`,
      [job.id, workerId, job.attempts],
    );
  }

  /** Completed exports whose link expired: their files, to delete. */
  async expiredFiles(limit: number): Promise<{ id: string; file_key: string }[]> {
    const rows = await this.exports.find({
      select: { id: true, file_key: true },
      where: { status: 'completed', file_key: Not(IsNull()), expires_at: Raw((column) => `${column} < now()`) },
      take: limit,
    });
    return rows as { id: string; file_key: string }[];
  }

  async forgetFile(id: string): Promise<void> {
    await this.exports.update({ id }, { file_key: null });
  }
}
