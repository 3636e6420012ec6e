import { Inject, Injectable } from '@nestjs/common';
import {
  CompanyFact, EVENT, ID_PREFIX, Lead, RequestContext, Reveal, RevealOutcome, SourceRecord, SUBJECTS, UpsertFromRevealRequest,
} from '@app/contracts';
import { DomainError, newId, NoAnswer, recordEvent, rootLogger, ServiceClient, UnitOfWork } from '@app/platform';
import { CreditsService } from '../credits/credits.service';
import { EntitiesRepository, EntityRow } from '../entities/entities.repository';
import { SEARCH_CONFIG, SearchConfig } from '../search.config';
import { candidateAddresses, EmailVerifier, Verification } from './email-verifier';
import { companyFactsOf, DELIVERABLE, isE164, revealSources } from './provenance';
import { RevealRow, RevealsRepository } from './reveals.repository';

export const EMAIL_VERIFIER = Symbol('EMAIL_VERIFIER');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How often a claimer renews its claim's heartbeat, and after how long without one a retry of its request takes the claim over. */
const CLAIMER_BEAT_MS = 250;
const CLAIMER_SILENT_MS = 1500;

/** The claim this claimer held was taken over as abandoned while it was still at work (its credit is given back). */
const takenOver = () => new DomainError('internal_error', 'The reveal took too long and was started again; nothing was charged');

/**
 * The reveal saga. One reveal row per workspace and entity is claimed first (status `pending`),
 * so concurrent reveals of one entity charge once: the others wait for the claim to settle and
 * answer `already_revealed`. The claimer consumes a credit (ref = the reveal id), verifies the
 * contact, has crm create or update the lead, then records the reveal with `reveal.completed`.
 * Any failure after the consume refunds it and releases the claim. A claim whose claimer died
 * holding it (older than CLAIM_ABANDONED_MS) is taken over: its ref is refunded and the claim
 * dropped, and the reveal claims afresh. Without that, every later reveal of the entity waited on
 * it for ever (a retried reveal never converged: the chaos run's stall after a search SIGKILL).
 * The claim keeps the request's Idempotency-Key: a retry of that request (the RPC client asking
 * another replica after an attempt's deadline) answers the completed reveal as the first attempt
 * did, `already_revealed` false and its credit, instead of as a repeat. The claimer renews a
 * heartbeat on its claim while it works (CLAIMER_BEAT_MS): a retry of the same request whose
 * claimer has gone silent (CLAIMER_SILENT_MS) takes the claim over then, not after it counts as
 * abandoned. A claimer that was only stalled finds its claim gone and answers internal_error,
 * which the client passes over for the retry's answer.
 */
@Injectable()
export class RevealsService {
  private readonly log = rootLogger('search');

  constructor(
    private readonly reveals: RevealsRepository,
    private readonly entities: EntitiesRepository,
    private readonly peers: ServiceClient,
    private readonly billing: CreditsService,
    @Inject(EMAIL_VERIFIER) private readonly verifier: EmailVerifier,
    @Inject(SEARCH_CONFIG) private readonly config: SearchConfig,
    private readonly uow: UnitOfWork,
  ) {}

  private render(row: RevealRow, ctx: RequestContext, already: boolean, charged: number): Reveal {
    return {
      id: row.id, object: 'reveal', entity_id: row.entity_id, lead_id: row.lead_id, status: row.status as Reveal['status'],
      email: row.email, email_status: row.email_status, email_confidence: row.email_confidence, phone: row.phone,
      credits_charged: charged, already_revealed: already, livemode: ctx.livemode, sources: row.sources, created_at: row.created_at.toISOString(),
    };
  }

  async create(ctx: RequestContext, body: { entity_id: string }): Promise<RevealOutcome> {
    const entityId = body?.entity_id;
    if (typeof entityId !== 'string' || entityId === '') throw DomainError.invalid('entity_id', 'entity_id is required');
    const entity = await this.entities.get(entityId);
    if (!entity) throw DomainError.notFound('entity', entityId, 'entity_id');
    if (!ctx.lenses.includes(entity.lens)) {
      throw new DomainError('permission_denied', `The entity is in the lens '${entity.lens}', which is not included in this workspace's plan`, 'entity_id');
    }
    if (ctx.mode === 'test' || ctx.livemode === false) return this.dryRun(ctx, entity);
    const deadline = Date.now() + this.config.revealWaitMs;
    for (;;) {
      const id = newId(ID_PREFIX.reveal);
      if (await this.reveals.claim(id, ctx.workspace_id, entity.id, ctx.idempotency?.key)) return this.run(ctx, entity, id);
      const row = await this.reveals.find(ctx.workspace_id, entity.id, this.config.revealClaimAbandonedMs, CLAIMER_SILENT_MS);
      const sameRequest = row !== undefined && ctx.idempotency !== undefined && row.idempotency_key === ctx.idempotency.key;
      if (row && row.status !== 'pending') {
        // a retry of the request that revealed it answers as its first attempt did (201, charged)
        return sameRequest ? { reveal: this.render(row, ctx, false, row.credits_charged), created: true } : { reveal: this.render(row, ctx, true, 0), created: false };
      }
      if (row?.abandoned) {
        await this.takeOver(ctx, row.id, this.config.revealClaimAbandonedMs);
        continue;
      }
      // a retry of this same request whose claimer went silent: its replica died holding it (a
      // slow claimer keeps beating, and its answer reaches the client, which listens to every attempt)
      if (sameRequest && row?.silent) {
        await this.takeOver(ctx, row.id, CLAIMER_SILENT_MS, true);
        continue;
      }
      if (Date.now() > deadline) throw DomainError.conflict('A reveal of this entity is in progress; retry', 'entity_id');
      await sleep(50);
    }
  }

  private async dryRun(ctx: RequestContext, entity: EntityRow): Promise<RevealOutcome> {
    const alreadyRevealed = await this.reveals.isRevealed(ctx.workspace_id, entity.id);
    const reveal: Reveal = {
      id: newId(ID_PREFIX.reveal), object: 'reveal', entity_id: entity.id, lead_id: null, status: 'dry_run', email: null, email_status: null,
      email_confidence: null, phone: null, credits_charged: 0, already_revealed: alreadyRevealed, livemode: false, sources: entity.sources,
      created_at: new Date().toISOString(),
    };
    return { reveal, created: false };
  }

  /**
   * One waiter takes an abandoned claim over: restarting its clock, so the other waiters keep
   * waiting (and a taker that dies is taken over in turn). It gives back what the dead claimer
   * may have taken (refunds are by ref and happen once; one billing does not answer waits in
   * pending_refunds), then drops the claim, so a claim is never dropped with its credit taken.
   */
  private async takeOver(ctx: RequestContext, id: string, olderThanMs: number, silent = false): Promise<void> {
    if (!(await this.reveals.takeOver(id, olderThanMs, silent))) return;
    this.log.warn({ workspace_id: ctx.workspace_id, reveal_id: id }, 'reveal: taking over a claim its claimer abandoned; refunding it');
    await this.billing.refund(ctx, id, 'reveal_abandoned');
    await this.reveals.releasePending(id);
  }

  private async release(ctx: RequestContext, id: string, refundReason?: string): Promise<void> {
    if (refundReason) await this.billing.refund(ctx, id, refundReason);
    await this.reveals.releasePending(id).catch(() => undefined);
  }

  /**
   * The first deliverable address (DELIVERABLE): the known one, else candidate patterns in order.
   * An address whose check could not be made (`unknown`) is not a contact; the other patterns at
   * its domain would wait on the same silent DNS or mail server, so the search stops there. All
   * candidates share one verification budget, so the reveal answers inside the gateway's deadline.
   */
  async findEmail(entity: EntityRow): Promise<Verification | null> {
    const candidates = entity.email ? [entity.email] : entity.domain ? candidateAddresses(entity.first_name, entity.last_name, entity.domain) : [];
    const deadline = this.verifier.deadline();
    for (const address of candidates) {
      const result = await this.verifier.verify(address, deadline);
      if (DELIVERABLE.includes(result.status)) return result;
      if (result.status === 'unknown') return null;
    }
    return null;
  }

  /**
   * What the reveal tells crm of the company: the facts of the organisation record matching the
   * entity's domain or organisation first (they outrank the entity's own in crm's merge), then the
   * entity's own.
   */
  private async companyFacts(entity: EntityRow): Promise<CompanyFact[]> {
    const own = companyFactsOf(entity);
    if (!entity.organization) return own;
    const record = await this.entities.findOrganization(entity.domain, entity.organization);
    return record && record.id !== entity.id ? [...companyFactsOf(record), ...own] : own;
  }

  private async run(ctx: RequestContext, entity: EntityRow, id: string): Promise<RevealOutcome> {
    const heartbeat = setInterval(() => void this.reveals.beat(id).catch(() => undefined), CLAIMER_BEAT_MS);
    try {
      return await this.runClaimed(ctx, entity, id);
    } finally {
      clearInterval(heartbeat);
    }
  }

  private async runClaimed(ctx: RequestContext, entity: EntityRow, id: string): Promise<RevealOutcome> {
    try {
      await this.billing.consume(ctx, id, 'reveal');
    } catch (err) {
      await this.release(ctx, id);
      throw err;
    }
    let found: Verification | null = null;
    // a phone counts when it is a dialable E.164 number the entity's record carries
    const phone = isE164(entity.phone) ? entity.phone : null;
    let sources: SourceRecord[] = entity.sources;
    let lead: Lead | null = null;
    try {
      found = await this.findEmail(entity);
      if (found || phone) {
        sources = revealSources(entity, found?.email ?? null, phone, new Date().toISOString());
        const request: UpsertFromRevealRequest = {
          entity_id: entity.id, lens: entity.lens, full_name: entity.person_name ?? entity.name, first_name: entity.first_name, last_name: entity.last_name,
          title: entity.title, email: found?.email ?? null, email_status: found?.status ?? null, email_confidence: found?.confidence ?? null, phone,
          company_name: entity.organization, company_domain: entity.domain, country: entity.country, sources,
          company_facts: await this.companyFacts(entity),
        };
        lead = await this.peers.ask<Lead>(SUBJECTS.crm.leadsUpsertFromReveal, ctx, request);
      }
    } catch (err) {
      this.log.error({ workspace_id: ctx.workspace_id, reveal_id: id, reason: (err as Error).message }, 'reveal failed; refunding');
      await this.release(ctx, id, 'reveal_failed');
      if (err instanceof NoAnswer) throw new DomainError('internal_error', 'The reveal could not be completed; nothing was charged');
      throw err;
    }
    if (!lead) {
      // nothing verifiable: the credit goes back; the entity stays unrevealed so a later reveal may find more
      await this.billing.refund(ctx, id, 'reveal_failed');
      return this.uow.run(async (tx) => {
        const row = await this.reveals.remove(tx, id);
        if (!row) throw takenOver();
        const reveal = this.render({ ...row, status: 'no_contact_found', sources: entity.sources }, ctx, false, 0);
        await recordEvent(tx, { type: EVENT.revealCompleted, workspace_id: ctx.workspace_id, livemode: ctx.livemode, api_version: ctx.api_version, object: reveal });
        return { reveal, created: true };
      });
    }
    try {
      return await this.uow.run(async (tx) => {
        const row = await this.reveals.markRevealed(tx, id, {
          leadId: lead.id, email: found?.email ?? null, emailStatus: found?.status ?? null, emailConfidence: found?.confidence ?? null, phone, sources,
        });
        // taken over as abandoned while this claimer was still at work: its credit is given back below
        if (!row) throw takenOver();
        const reveal = this.render(row, ctx, false, 1);
        await recordEvent(tx, { type: EVENT.revealCompleted, workspace_id: ctx.workspace_id, livemode: ctx.livemode, api_version: ctx.api_version, object: reveal });
        return { reveal, created: true };
      });
    } catch (err) {
      await this.release(ctx, id, 'reveal_failed');
      throw err;
    }
  }
}
