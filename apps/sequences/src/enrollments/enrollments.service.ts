import { Injectable } from '@nestjs/common';
import { CreateEnrollmentsRequest, DeleteEnrollmentRequest, Enrollment, EnrollmentResult, ID_PREFIX, RequestContext, SkipReason } from '@app/contracts';
import { currentCarrier, DomainError, newId, UnitOfWork } from '@app/platform';
import { CrmClient } from '../crm.client';
import { EnrollmentRow, renderEnrollment } from './enrollment.mapper';
import { countryAllows } from '../sequences/country-rules';
import { SequencesRepository } from '../sequences/sequences.repository';
import { SequencesService } from '../sequences/sequences.service';
import { SuppressionsService } from '../suppressions/suppressions.service';
import { EnrollmentsRepository, NewEnrollment } from './enrollments.repository';

/** Enrolling leads in a sequence (the rules of who is skipped) and removing them. */
@Injectable()
export class EnrollmentsService {
  constructor(
    private readonly enrollments: EnrollmentsRepository,
    private readonly sequences: SequencesService,
    private readonly sequenceRows: SequencesRepository,
    private readonly suppressions: SuppressionsService,
    private readonly crm: CrmClient,
    private readonly uow: UnitOfWork,
  ) {}

  /**
   * Each lead is enrolled or skipped with the first reason that applies, in the order
   * not_found, already_enrolled, no_email, email_invalid, suppressed, country_blocked.
   * A test key computes the same result and writes nothing. Leads that an earlier attempt of the
   * same request (its Idempotency-Key) enrolled are reported enrolled, as that attempt did.
   */
  async enroll(ctx: RequestContext, body: CreateEnrollmentsRequest): Promise<EnrollmentResult> {
    const sequence = await this.sequences.findRow(ctx.workspace_id, body.sequence_id);
    if (sequence.status === 'completed') throw DomainError.conflict('A completed sequence accepts no enrollments', 'id');
    const ids = [...new Set(body.lead_ids)];
    const key = ctx.idempotency?.key ?? null;
    const [leads, already, rules] = await Promise.all([
      this.crm.getLeads(ctx, ids),
      this.enrollments.enrolledAlready(sequence.id, ids, key),
      this.sequenceRows.countryRules(ctx.workspace_id),
    ]);
    const byId = new Map(leads.map((l) => [l.id, l]));
    const suppressed = await this.suppressions.suppressedAmong(ctx.workspace_id, leads.map((l) => l.email).filter((e): e is string => !!e));
    const skipped: EnrollmentResult['skipped'] = [];
    const toEnroll: typeof leads = [];
    // an earlier attempt of this request (same Idempotency-Key) enrolled these: they are this request's enrollments
    const earlier = ctx.livemode ? already.byKey : [];
    const ours = new Set(earlier.map((row) => row.lead_id));
    const enrolledAlready = already.leadIds;
    for (const id of ids) {
      if (ours.has(id)) continue;
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
      enrolledRows = await this.enrollments.insertMany(
        ctx.workspace_id, sequence.id, toEnroll.map((lead) => ({ id: newId(ID_PREFIX.enrollment), lead: lead as NewEnrollment['lead'] })), traceContextJson(), key,
      );
    }
    enrolledRows.push(...earlier);
    const lost = toEnroll.filter((lead) => !enrolledRows.some((row) => row.lead_id === lead.id)).map((lead) => lead.id);
    // a concurrent attempt of this same request (the RPC client's retry) enrolled some of them first
    if (key && lost.length > 0) enrolledRows.push(...(await this.enrollments.enrolledAlready(sequence.id, lost, key)).byKey);
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
    await this.sequences.findRow(ctx.workspace_id, body.sequence_id);
    return this.uow.run(async (tx) => {
      let row = await this.enrollments.remove(tx, ctx.workspace_id, body.sequence_id, body.lead_id);
      if (row) {
        await this.enrollments.cancelQueuedMessages(tx, [row.id]);
      } else {
        row = await this.enrollments.find(tx, ctx.workspace_id, body.sequence_id, body.lead_id);
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
