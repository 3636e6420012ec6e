import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import {
  CompanyFact, EVENT, ID_PREFIX, Lead, RequestContext, Reveal, RevealOutcome, SourceRecord, SUBJECTS, UpsertFromRevealRequest,
} from '@app/contracts';
import { activeDeadline, DomainError, newId, NoAnswer, recordEvent, rootLogger, runPeriodically, ServiceClient, UnitOfWork } from '@app/platform';
import { CreditsService } from '../credits/credits.service';
import { LeasesService } from '../credits/leases.service';
import { EntitiesRepository, EntityRow } from '../entities/entities.repository';
import { SEARCH_CONFIG, SearchConfig } from '../search.config';
import { candidateAddresses, EmailVerifier, Verification } from './email-verifier';
import { companyFactsOf, DELIVERABLE, isE164, revealSources } from './provenance';
import { RevealOwner } from './reveal-owner';
import { RevealRow, RevealsRepository } from './reveals.repository';

export const EMAIL_VERIFIER = Symbol('EMAIL_VERIFIER');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How often processes whose heartbeat stopped long ago are forgotten. */
const OWNER_SWEEP_MS = 60 * 60 * 1000;

/** The claim this claimer held was taken over as abandoned while it was still at work (its credit is given back). */
const takenOver = () => new DomainError('internal_error', 'The reveal took too long and was started again; nothing was charged');

/** How often a reveal waiting on another's claim looks at it again. */
const WAIT_POLL_MS = 50;

/**
 * The reveal saga. One reveal row per workspace and entity is claimed first (status `pending`),
 * so concurrent reveals of one entity charge once: the others wait for the claim to settle and
 * answer `already_revealed`. The claimer consumes a credit (ref = the reveal id), verifies the
 * contact, has crm create or update the lead, then records the reveal with `reveal.completed`.
 * Any failure after the consume refunds it and releases the claim, and a waiter claims afresh.
 * The claim names the search process that holds it (RevealOwner: a liveness lock on a session of
 * its own and a heartbeat): a claim whose owner is gone (a SIGKILLed replica) is taken over by
 * the first reveal of the entity that meets it, within the owner's stale time, its ref refunded
 * and the claim dropped, and the reveal claims afresh; a claim of a live owner is never taken over
 * before it counts as abandoned (older than CLAIM_ABANDONED_MS), however slow its owner or its
 * pool, so a slow reveal is not run twice and does not answer internal_error for its retry.
 * The claim keeps the request's Idempotency-Key: a retry of that request (the RPC client asking
 * another replica after an attempt's deadline) waits on the first attempt's claim like any other
 * reveal and then answers the completed reveal as the first attempt did, `already_revealed` false
 * and its credit, instead of as a repeat (the client takes whichever attempt answers first).
 */
@Injectable()
export class RevealsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = rootLogger('search');
  private stopSweeping?: () => void;

  constructor(
    private readonly reveals: RevealsRepository,
    private readonly entities: EntitiesRepository,
    private readonly peers: ServiceClient,
    private readonly billing: CreditsService,
    @Inject(EMAIL_VERIFIER) private readonly verifier: EmailVerifier,
    @Inject(SEARCH_CONFIG) private readonly config: SearchConfig,
    private readonly uow: UnitOfWork,
    private readonly owner: RevealOwner,
    private readonly leases: LeasesService,
  ) {}

  onApplicationBootstrap(): void {
    this.stopSweeping = runPeriodically(() => this.reveals.sweepOwners(), OWNER_SWEEP_MS);
  }

  onApplicationShutdown(): void {
    this.stopSweeping?.();
    this.verifier.close();
  }

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
    // nothing is claimed without this process's liveness lock (else its claim looks like a dead replica's)
    await this.owner.ensureLive().catch((err: Error) => {
      this.log.error({ workspace_id: ctx.workspace_id, reason: err.message }, 'reveal: no liveness lock; not claiming');
      throw new DomainError('internal_error', 'The reveal could not be started; nothing was charged');
    });
    // a waiter answers by the time its caller stops waiting (Rpc-Deadline), or after REVEAL_WAIT_MS
    const deadline = Math.min(Date.now() + this.config.revealWaitMs, activeDeadline() ?? Infinity);
    for (;;) {
      const id = newId(ID_PREFIX.reveal);
      if (await this.reveals.claim(id, ctx.workspace_id, entity.id, ctx.idempotency?.key ?? null, this.owner.id)) return this.run(ctx, entity, id);
      const row = await this.reveals.find(ctx.workspace_id, entity.id, this.config.revealClaimAbandonedMs, this.owner.staleAfterMs);
      if (!row) continue; // released meanwhile: claim it
      if (row.status !== 'pending') {
        // a retry of the request that revealed it answers as its first attempt did (201, charged)
        const sameRequest = ctx.idempotency !== undefined && row.idempotency_key === ctx.idempotency.key;
        return sameRequest ? { reveal: this.render(row, ctx, false, row.credits_charged), created: true } : { reveal: this.render(row, ctx, true, 0), created: false };
      }
      // its owner died holding it (or it is older than any live claimer holds one): taken over, then claimed afresh
      if ((row.abandoned || row.stale) && (await this.takeOver(ctx, row.id))) continue;
      if (Date.now() > deadline) throw DomainError.conflict('A reveal of this entity is in progress; retry', 'entity_id');
      await sleep(WAIT_POLL_MS);
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
   * One waiter takes over a claim whose owner is gone or that counts as abandoned (the conditional
   * UPDATE names it the owner, so the other waiters keep waiting on a live one, and a taker that
   * dies is taken over in turn). It gives back what the claimer may have taken (refunds are by ref
   * and happen once; one billing does not answer waits in pending_refunds), then drops the claim,
   * so a claim is never dropped with its credit taken. True when this call took it.
   */
  private async takeOver(ctx: RequestContext, id: string): Promise<boolean> {
    if (!(await this.reveals.takeOver(id, this.owner.id, this.config.revealClaimAbandonedMs, this.owner.staleAfterMs))) return false;
    this.log.warn({ workspace_id: ctx.workspace_id, reveal_id: id }, 'reveal: taking over a claim whose claimer is gone; refunding it');
    await this.billing.refund(ctx, id, 'reveal_abandoned');
    await this.reveals.releasePending(id);
    return true;
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
    const results = await this.verifier.verifyUntil(candidates, this.verifier.deadline(), (result) => DELIVERABLE.includes(result.status) || result.status === 'unknown');
    const last = results.at(-1);
    return last && DELIVERABLE.includes(last.status) ? last : null;
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

  /**
   * The reveal's credit. Billing refusing it while search pages hold some of the workspace's
   * credits in a lease: the leases are returned (settled) and the credit asked again, so a
   * reveal is not refused credits a lease holds unused.
   */
  private async consume(ctx: RequestContext, id: string): Promise<void> {
    try {
      await this.billing.consume(ctx, id, 'reveal');
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'insufficient_credits') || !(await this.leases.holdsLease(ctx.workspace_id))) throw err;
      await this.leases.settleWorkspace(ctx);
      await this.billing.consume(ctx, id, 'reveal');
    }
  }

  private async run(ctx: RequestContext, entity: EntityRow, id: string): Promise<RevealOutcome> {
    try {
      await this.consume(ctx, id);
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
        const row = await this.reveals.remove(tx, id, this.owner.id);
        if (!row) throw takenOver();
        const reveal = this.render({ ...row, status: 'no_contact_found', sources: entity.sources }, ctx, false, 0);
        await recordEvent(tx, { type: EVENT.revealCompleted, workspace_id: ctx.workspace_id, livemode: ctx.livemode, api_version: ctx.api_version, object: reveal });
        return { reveal, created: true };
      });
    }
    try {
      return await this.uow.run(async (tx) => {
        const row = await this.reveals.markRevealed(tx, id, this.owner.id, {
          leadId: lead.id, email: found?.email ?? null, emailStatus: found?.status ?? null, emailConfidence: found?.confidence ?? null, phone, sources,
        });
        // taken over (as abandoned, or its owner looked gone) while this claimer was still at work: its credit is given back below
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
