import { Inject, Injectable } from '@nestjs/common';
import { Pool } from 'pg';
import {
  COUNTRY_RULES, CountryRule, CreateEnrollmentsRequest, CreateSequenceRequest, DeleteEnrollmentRequest, Enrollment, EnrollmentResult, ID_PREFIX,
  LENSES, ListEnvelope, ListSequencesRequest, RequestContext, Sequence, SequenceStats, SetCountryRuleRequest, SkipReason,
} from '@app/contracts';
import { currentCarrier, DomainError, ListFilter, newId, PG_POOL, Queryable, toListPage, withTransaction } from '@app/platform';
import { CrmClient } from '../crm-client';
import { unknownTags } from '../engine/merge-tags';
import { MailboxesRepository } from '../mailboxes/mailboxes.repository';
import {
  ENROLLMENT_COLUMNS, EnrollmentRow, renderEnrollment, renderSequence, SEQUENCE_COLUMNS, SequenceRow, StepRow,
} from '../rows';
import { SuppressionsService } from '../suppressions/suppressions.service';
import { countryAllows } from './country-rules';

const EMPTY_STATS: SequenceStats = { enrolled: 0, active: 0, sent: 0, replied: 0, bounced: 0, unsubscribed: 0 };

@Injectable()
export class SequencesService {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    private readonly mailboxes: MailboxesRepository,
    private readonly suppressions: SuppressionsService,
    private readonly crm: CrmClient,
  ) {}

  private async findRow(db: Queryable, workspaceId: string, id: string, forUpdate = false): Promise<SequenceRow> {
    const { rows } = await db.query<SequenceRow>(
      `SELECT ${SEQUENCE_COLUMNS} FROM sequences WHERE workspace_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
      [workspaceId, id],
    );
    if (!rows[0]) throw DomainError.notFound('sequence', id, 'id');
    return rows[0];
  }

  private async stepsOf(db: Queryable, ids: string[]): Promise<Map<string, StepRow[]>> {
    const { rows } = await db.query<StepRow>(
      'SELECT sequence_id, position, type, subject, body, wait_days FROM sequence_steps WHERE sequence_id = ANY($1) ORDER BY sequence_id, position',
      [ids],
    );
    const out = new Map<string, StepRow[]>();
    for (const row of rows) out.set(row.sequence_id, [...(out.get(row.sequence_id) ?? []), row]);
    return out;
  }

  /** Exact counts, computed from the rows (never a cached counter). */
  private async statsOf(db: Queryable, ids: string[]): Promise<Map<string, SequenceStats>> {
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

  private async render(db: Queryable, rows: SequenceRow[]): Promise<Sequence[]> {
    const ids = rows.map((r) => r.id);
    const [steps, stats] = await Promise.all([this.stepsOf(db, ids), this.statsOf(db, ids)]);
    return rows.map((r) => renderSequence(r, steps.get(r.id) ?? [], stats.get(r.id) ?? EMPTY_STATS));
  }

  async list(ctx: RequestContext, query: ListSequencesRequest): Promise<ListEnvelope<Sequence>> {
    const filter = new ListFilter(ctx.workspace_id, query.starting_after).add((p) => `status = ${p}`, query.status);
    const { rows } = await this.pool.query<SequenceRow>(`SELECT ${SEQUENCE_COLUMNS} FROM sequences ${filter.page(query.limit)}`, filter.params);
    const page = toListPage(rows, query.limit, (r) => r);
    return { ...page, data: await this.render(this.pool, page.data) };
  }

  async get(ctx: RequestContext, id: string): Promise<Sequence> {
    const row = await this.findRow(this.pool, ctx.workspace_id, id);
    return (await this.render(this.pool, [row]))[0];
  }

  /** A draft from the application's sequence file; its content is checked at launch. */
  async create(ctx: RequestContext, body: CreateSequenceRequest): Promise<Sequence> {
    if (typeof body?.name !== 'string' || !body.name.trim()) throw DomainError.invalid('name', 'name is required');
    if (body.lens !== undefined && body.lens !== null && !(LENSES as readonly string[]).includes(body.lens)) {
      throw DomainError.invalid('lens', `lens must be one of ${LENSES.join(', ')}`);
    }
    if (!Array.isArray(body.mailbox_ids) || body.mailbox_ids.some((m) => typeof m !== 'string')) {
      throw DomainError.invalid('mailbox_ids', 'mailbox_ids must be an array of mailbox ids');
    }
    if (!Array.isArray(body.steps) || body.steps.length === 0 || body.steps.length > 50) {
      throw DomainError.invalid('steps', 'steps must be an array of 1 to 50 steps');
    }
    body.steps.forEach((step, i) => {
      const at = `steps[${i}]`;
      if (step?.type === 'email') {
        if (typeof step.subject !== 'string' || !step.subject.trim()) throw DomainError.invalid(`${at}.subject`, 'an email step needs a subject');
        if (typeof step.body !== 'string' || !step.body.trim()) throw DomainError.invalid(`${at}.body`, 'an email step needs a body');
      } else if (step?.type === 'wait') {
        if (!Number.isInteger(step.wait_days) || (step.wait_days as number) < 0 || (step.wait_days as number) > 365) {
          throw DomainError.invalid(`${at}.wait_days`, 'a wait step needs wait_days from 0 to 365');
        }
      } else {
        throw DomainError.invalid(`${at}.type`, 'type must be email or wait');
      }
    });
    const found = await this.mailboxes.findMany(this.pool, ctx.workspace_id, body.mailbox_ids);
    const missing = body.mailbox_ids.find((m) => !found.some((f) => f.id === m));
    if (missing) throw DomainError.notFound('mailbox', missing, 'mailbox_ids');
    const id = newId(ID_PREFIX.sequence);
    return withTransaction(this.pool, async (tx) => {
      const { rows } = await tx.query<SequenceRow>(
        `INSERT INTO sequences (id, workspace_id, name, lens, mailbox_ids, business_days_only) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${SEQUENCE_COLUMNS}`,
        [id, ctx.workspace_id, body.name.trim(), body.lens ?? null, [...new Set(body.mailbox_ids)], body.business_days_only === true],
      );
      for (const [i, step] of body.steps.entries()) {
        await tx.query('INSERT INTO sequence_steps (sequence_id, position, type, subject, body, wait_days) VALUES ($1, $2, $3, $4, $5, $6)', [
          id, i + 1, step.type, step.type === 'email' ? step.subject : null, step.type === 'email' ? step.body : null,
          step.type === 'wait' ? step.wait_days : null,
        ]);
      }
      return (await this.render(tx, rows))[0];
    });
  }

  /**
   * The pre-launch checklist: every failure is listed, none fixed silently. Passing makes the
   * sequence `active` (and stamps `launched_at` the first time).
   */
  async launch(ctx: RequestContext, id: string): Promise<Sequence> {
    const row = await this.findRow(this.pool, ctx.workspace_id, id);
    if (row.status === 'active') return this.get(ctx, id);
    if (row.status === 'completed') throw DomainError.conflict('A completed sequence cannot be launched again', 'id');
    const steps = (await this.stepsOf(this.pool, [id])).get(id) ?? [];
    const failures: string[] = [];
    if (!steps.some((s) => s.type === 'email')) failures.push('the sequence has no email step');
    if (steps.length > 0 && steps[steps.length - 1].type === 'wait') failures.push('the last step is a wait step');
    if (row.mailbox_ids.length === 0) failures.push('the sequence has no mailbox');
    const mailboxes = await this.mailboxes.findMany(this.pool, ctx.workspace_id, row.mailbox_ids);
    for (const mailboxId of row.mailbox_ids) {
      const mailbox = mailboxes.find((m) => m.id === mailboxId);
      if (!mailbox) {
        failures.push(`mailbox ${mailboxId} does not exist`);
        continue;
      }
      const checked = await this.mailboxes.verify(mailbox);
      if (!checked.verified) failures.push(`mailbox ${mailboxId} (${mailbox.email}) is not reachable or not verified`);
    }
    for (const step of steps.filter((s) => s.type === 'email')) {
      const unknown = unknownTags(`${step.subject} ${step.body}`);
      if (unknown.length > 0) failures.push(`step ${step.position} uses unknown merge tags: ${unknown.join(', ')}`);
      if (!/\{\{\s*unsubscribe_url\s*(\|[^}]*)?\}\}/.test(step.body ?? '')) failures.push(`step ${step.position} has no unsubscribe link ({{unsubscribe_url}}) in its body`);
    }
    if (failures.length > 0) {
      throw new DomainError('invalid_request', `The pre-launch checklist failed: ${failures.map((f, i) => `(${i + 1}) ${f}`).join('; ')}`, 'id');
    }
    await this.pool.query(
      `UPDATE sequences SET status = 'active', paused_reason = NULL, launched_at = coalesce(launched_at, date_trunc('milliseconds', now())) WHERE id = $1`,
      [id],
    );
    return this.get(ctx, id);
  }

  async pause(ctx: RequestContext, id: string): Promise<Sequence> {
    const row = await this.findRow(this.pool, ctx.workspace_id, id);
    if (row.status !== 'active' && row.status !== 'paused') throw DomainError.conflict(`A ${row.status} sequence cannot be paused`, 'id');
    await this.pool.query(`UPDATE sequences SET status = 'paused', paused_reason = 'manual' WHERE id = $1 AND status = 'active'`, [id]);
    return this.get(ctx, id);
  }

  /** Resuming a launched sequence skips no check that matters: it was launched once already. */
  async resume(ctx: RequestContext, id: string): Promise<Sequence> {
    const row = await this.findRow(this.pool, ctx.workspace_id, id);
    if (row.status === 'draft') throw DomainError.conflict('A draft sequence is launched, not resumed', 'id');
    if (row.status === 'completed') throw DomainError.conflict('A completed sequence cannot be resumed', 'id');
    await this.pool.query(`UPDATE sequences SET status = 'active', paused_reason = NULL WHERE id = $1`, [id]);
    return this.get(ctx, id);
  }

  async setCountryRule(ctx: RequestContext, body: SetCountryRuleRequest): Promise<{ object: 'country_rule'; country: string; rule: CountryRule }> {
    const country = typeof body?.country === 'string' ? body.country.toUpperCase() : '';
    if (!/^[A-Z]{2}$/.test(country)) throw DomainError.invalid('country', 'country must be an ISO 3166-1 alpha-2 code');
    if (!(COUNTRY_RULES as readonly string[]).includes(body.rule)) throw DomainError.invalid('rule', `rule must be one of ${COUNTRY_RULES.join(', ')}`);
    await this.pool.query(
      `INSERT INTO country_rules (workspace_id, country, rule) VALUES ($1, $2, $3)
       ON CONFLICT (workspace_id, country) DO UPDATE SET rule = EXCLUDED.rule, updated_at = now()`,
      [ctx.workspace_id, country, body.rule],
    );
    return { object: 'country_rule', country, rule: body.rule };
  }

  /**
   * Each lead is enrolled or skipped with the first reason that applies, in the order
   * not_found, already_enrolled, no_email, email_invalid, suppressed, country_blocked.
   * A test key computes the same result and writes nothing.
   */
  async enroll(ctx: RequestContext, body: CreateEnrollmentsRequest): Promise<EnrollmentResult> {
    const sequence = await this.findRow(this.pool, ctx.workspace_id, body.sequence_id);
    if (sequence.status === 'completed') throw DomainError.conflict('A completed sequence accepts no enrollments', 'id');
    const ids = [...new Set(body.lead_ids)];
    const [leads, existing, overrides] = await Promise.all([
      this.crm.getLeads(ctx, ids),
      this.pool.query<{ lead_id: string }>('SELECT lead_id FROM enrollments WHERE sequence_id = $1 AND lead_id = ANY($2)', [sequence.id, ids]),
      this.pool.query<{ country: string; rule: CountryRule }>('SELECT country, rule FROM country_rules WHERE workspace_id = $1', [ctx.workspace_id]),
    ]);
    const byId = new Map(leads.map((l) => [l.id, l]));
    const enrolledAlready = new Set(existing.rows.map((r) => r.lead_id));
    const rules = new Map(overrides.rows.map((r) => [r.country, r.rule]));
    const suppressed = await this.suppressions.suppressedAmong(this.pool, ctx.workspace_id, leads.map((l) => l.email).filter((e): e is string => !!e));
    const skipped: EnrollmentResult['skipped'] = [];
    const toEnroll: typeof leads = [];
    for (const id of ids) {
      const lead = byId.get(id);
      const reason: SkipReason | null = !lead
        ? 'not_found'
        : enrolledAlready.has(id)
          ? 'already_enrolled'
          : !lead.email
            ? 'no_email'
            : lead.email_status === 'invalid'
              ? 'email_invalid'
              : suppressed.has(lead.email.toLowerCase())
                ? 'suppressed'
                : !countryAllows(lead, rules)
                  ? 'country_blocked'
                  : null;
      if (reason) skipped.push({ lead_id: id, reason });
      else toEnroll.push(lead as (typeof leads)[number]);
    }
    const now = new Date(Math.floor(Date.now()));
    if (!ctx.livemode) {
      const enrolled: Enrollment[] = toEnroll.map((lead) => ({
        id: newId(ID_PREFIX.enrollment), object: 'enrollment', sequence_id: sequence.id, lead_id: lead.id, status: 'active', current_step: 1,
        next_send_at: now.toISOString(), enrolled_at: now.toISOString(), stopped_at: null, stop_reason: null,
      }));
      return { object: 'enrollment_result', livemode: false, enrolled, skipped };
    }
    let enrolledRows: EnrollmentRow[] = [];
    if (toEnroll.length > 0) {
      const { rows } = await this.pool.query<EnrollmentRow>(
        `INSERT INTO enrollments (id, workspace_id, sequence_id, lead_id, email, lead, next_send_at, trace_context)
         SELECT id, $1, $2, lead_id, email, lead, date_trunc('milliseconds', now()), $7::json
         FROM unnest($3::text[], $4::text[], $5::text[], $6::jsonb[]) AS t(id, lead_id, email, lead)
         ON CONFLICT (sequence_id, lead_id) DO NOTHING
         RETURNING ${ENROLLMENT_COLUMNS}`,
        [
          ctx.workspace_id, sequence.id, toEnroll.map(() => newId(ID_PREFIX.enrollment)), toEnroll.map((l) => l.id),
          toEnroll.map((l) => l.email), toEnroll.map((l) => JSON.stringify(l)), traceContextJson(),
        ],
      );
      enrolledRows = rows;
    }
    // a concurrent request enrolled some of them first
    const won = new Set(enrolledRows.map((r) => r.lead_id));
    for (const lead of toEnroll) if (!won.has(lead.id)) skipped.push({ lead_id: lead.id, reason: 'already_enrolled' });
    const order = new Map(ids.map((id, i) => [id, i]));
    enrolledRows.sort((a, b) => (order.get(a.lead_id) ?? 0) - (order.get(b.lead_id) ?? 0));
    skipped.sort((a, b) => (order.get(a.lead_id) ?? 0) - (order.get(b.lead_id) ?? 0));
    return { object: 'enrollment_result', livemode: true, enrolled: enrolledRows.map(renderEnrollment), skipped };
  }

  /**
   * Stops the sequence for one lead (`removed`, `next_send_at` null) and cancels its queued email.
   * An enrollment that had already completed or stopped becomes `removed` too, as the spec's
   * response says; how it had ended stays in `ended_before_removal` (the stats keep counting it)
   * and in its messages. Removing it again returns it unchanged.
   */
  async unenroll(ctx: RequestContext, body: DeleteEnrollmentRequest): Promise<Enrollment> {
    await this.findRow(this.pool, ctx.workspace_id, body.sequence_id);
    return withTransaction(this.pool, async (tx) => {
      const { rows } = await tx.query<EnrollmentRow>(
        `UPDATE enrollments SET status = 'stopped', stop_reason = 'removed', stopped_at = date_trunc('milliseconds', now()), next_send_at = NULL, hold_reason = NULL,
           ended_before_removal = CASE WHEN status = 'completed' THEN 'completed' WHEN status = 'stopped' THEN stop_reason END
         WHERE workspace_id = $1 AND sequence_id = $2 AND lead_id = $3 AND stop_reason IS DISTINCT FROM 'removed'
         RETURNING ${ENROLLMENT_COLUMNS}`,
        [ctx.workspace_id, body.sequence_id, body.lead_id],
      );
      let row = rows[0];
      if (row) {
        await tx.query(`UPDATE email_messages SET status = 'cancelled', lease_until = NULL WHERE enrollment_id = $1 AND status = 'queued'`, [row.id]);
      } else {
        const found = await tx.query<EnrollmentRow>(
          `SELECT ${ENROLLMENT_COLUMNS} FROM enrollments WHERE workspace_id = $1 AND sequence_id = $2 AND lead_id = $3`,
          [ctx.workspace_id, body.sequence_id, body.lead_id],
        );
        row = found.rows[0];
        if (!row) throw new DomainError('not_found', `Lead '${body.lead_id}' is not enrolled in sequence '${body.sequence_id}'`, 'lead_id');
      }
      return renderEnrollment(row);
    });
  }

}

/** The enrolling request's trace and request id, for the enrollment's emails (their send continues it). */
function traceContextJson(): string | null {
  const carrier = currentCarrier();
  return carrier ? JSON.stringify(carrier) : null;
}
