import { Injectable } from '@nestjs/common';
import {
  COUNTRY_RULES, CountryRule, CreateSequenceRequest, ID_PREFIX, LENSES, ListEnvelope, ListSequencesRequest, RequestContext, Sequence, SequenceStats,
  SetCountryRuleRequest,
} from '@app/contracts';
import { DomainError, newId, Queryable, toListPage, UnitOfWork } from '@app/platform';
import { unknownTags } from '../engine/merge-tags';
import { MailboxesRepository } from '../mailboxes/mailboxes.repository';
import { MailboxesService } from '../mailboxes/mailboxes.service';
import { renderSequence, SequenceRow } from './sequence.mapper';
import { SequencesRepository } from './sequences.repository';

const EMPTY_STATS: SequenceStats = { enrolled: 0, active: 0, sent: 0, replied: 0, bounced: 0, unsubscribed: 0 };

@Injectable()
export class SequencesService {
  constructor(
    private readonly sequences: SequencesRepository,
    private readonly mailboxes: MailboxesRepository,
    private readonly mailboxChecks: MailboxesService,
    private readonly uow: UnitOfWork,
  ) {}

  /** The workspace's sequence, or not_found. */
  async findRow(workspaceId: string, id: string): Promise<SequenceRow> {
    const row = await this.sequences.findById(workspaceId, id);
    if (!row) throw DomainError.notFound('sequence', id, 'id');
    return row;
  }

  private async render(rows: SequenceRow[], db?: Queryable): Promise<Sequence[]> {
    const ids = rows.map((r) => r.id);
    const [steps, stats] = await Promise.all([this.sequences.stepsOf(ids, db), this.sequences.statsOf(ids, db)]);
    return rows.map((r) => renderSequence(r, steps.get(r.id) ?? [], stats.get(r.id) ?? EMPTY_STATS));
  }

  async list(ctx: RequestContext, query: ListSequencesRequest): Promise<ListEnvelope<Sequence>> {
    const page = toListPage(await this.sequences.list(ctx.workspace_id, query), query.limit, (r) => r);
    return { ...page, data: await this.render(page.data) };
  }

  async get(ctx: RequestContext, id: string): Promise<Sequence> {
    const row = await this.findRow(ctx.workspace_id, id);
    return (await this.render([row]))[0];
  }

  /** Admin CLI: which workspace a sequence belongs to (the commands name only the sequence); no one else learns it. */
  async owner(ctx: RequestContext, id: string): Promise<{ workspace_id: string }> {
    if (ctx.key_id !== 'admin-cli') throw DomainError.notFound('sequence', String(id), 'id');
    const workspaceId = await this.sequences.workspaceOf(id);
    if (!workspaceId) throw DomainError.notFound('sequence', String(id), 'id');
    return { workspace_id: workspaceId };
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
    const found = await this.mailboxes.findMany(ctx.workspace_id, body.mailbox_ids);
    const missing = body.mailbox_ids.find((m) => !found.some((f) => f.id === m));
    if (missing) throw DomainError.notFound('mailbox', missing, 'mailbox_ids');
    const id = newId(ID_PREFIX.sequence);
    const steps = body.steps.map((step, i) => ({
      sequence_id: id, position: i + 1, type: step.type, subject: step.type === 'email' ? (step.subject as string) : null,
      body: step.type === 'email' ? (step.body as string) : null, wait_days: step.type === 'wait' ? (step.wait_days as number) : null,
    }));
    return this.uow.run(async ({ manager, client }) => {
      const row = await this.sequences.insert(manager, {
        id, workspace_id: ctx.workspace_id, name: body.name.trim(), lens: body.lens ?? null, mailbox_ids: [...new Set(body.mailbox_ids)],
        business_days_only: body.business_days_only === true,
      }, steps);
      return (await this.render([row], client))[0];
    });
  }

  /**
   * The pre-launch checklist: every failure is listed, none fixed silently. Passing makes the
   * sequence `active` (and stamps `launched_at` the first time).
   */
  async launch(ctx: RequestContext, id: string): Promise<Sequence> {
    const row = await this.findRow(ctx.workspace_id, id);
    if (row.status === 'active') return this.get(ctx, id);
    if (row.status === 'completed') throw DomainError.conflict('A completed sequence cannot be launched again', 'id');
    const steps = (await this.sequences.stepsOf([id])).get(id) ?? [];
    const failures: string[] = [];
    if (!steps.some((s) => s.type === 'email')) failures.push('the sequence has no email step');
    if (steps.length > 0 && steps[steps.length - 1].type === 'wait') failures.push('the last step is a wait step');
    if (row.mailbox_ids.length === 0) failures.push('the sequence has no mailbox');
    const mailboxes = await this.mailboxes.findMany(ctx.workspace_id, row.mailbox_ids);
    for (const mailboxId of row.mailbox_ids) {
      const mailbox = mailboxes.find((m) => m.id === mailboxId);
      if (!mailbox) {
        failures.push(`mailbox ${mailboxId} does not exist`);
        continue;
      }
      const checked = await this.mailboxChecks.verify(mailbox);
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
    await this.sequences.markLaunched(id);
    return this.get(ctx, id);
  }

  async pause(ctx: RequestContext, id: string): Promise<Sequence> {
    const row = await this.findRow(ctx.workspace_id, id);
    if (row.status !== 'active' && row.status !== 'paused') throw DomainError.conflict(`A ${row.status} sequence cannot be paused`, 'id');
    await this.sequences.pauseManually(id);
    return this.get(ctx, id);
  }

  /** Resuming a launched sequence skips no check that matters: it was launched once already. */
  async resume(ctx: RequestContext, id: string): Promise<Sequence> {
    const row = await this.findRow(ctx.workspace_id, id);
    if (row.status === 'draft') throw DomainError.conflict('A draft sequence is launched, not resumed', 'id');
    if (row.status === 'completed') throw DomainError.conflict('A completed sequence cannot be resumed', 'id');
    await this.sequences.markResumed(id);
    return this.get(ctx, id);
  }

  async setCountryRule(ctx: RequestContext, body: SetCountryRuleRequest): Promise<{ object: 'country_rule'; country: string; rule: CountryRule }> {
    const country = typeof body?.country === 'string' ? body.country.toUpperCase() : '';
    if (!/^[A-Z]{2}$/.test(country)) throw DomainError.invalid('country', 'country must be an ISO 3166-1 alpha-2 code');
    if (!(COUNTRY_RULES as readonly string[]).includes(body.rule)) throw DomainError.invalid('rule', `rule must be one of ${COUNTRY_RULES.join(', ')}`);
    await this.sequences.setCountryRule(ctx.workspace_id, country, body.rule);
    return { object: 'country_rule', country, rule: body.rule };
  }
}
