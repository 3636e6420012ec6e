import { Injectable } from '@nestjs/common';
import {
  CreateSuppressionRequest, EVENT, ID_PREFIX, ListEnvelope, ListSuppressionsRequest, RequestContext, Suppression, SUPPRESSION_REASONS,
} from '@app/contracts';
import { DomainError, newId, Queryable, recordEvent, toListPage, Tx, UnitOfWork } from '@app/platform';
import { renderSuppression } from './suppression.mapper';
import { domainCandidates, normalizeDomain, normalizeEmail } from './matching';
import { SuppressionsRepository } from './suppressions.repository';

@Injectable()
export class SuppressionsService {
  constructor(
    private readonly suppressions: SuppressionsRepository,
    private readonly uow: UnitOfWork,
  ) {}

  /** Workspace entries and global ones, newest first. */
  async list(ctx: RequestContext, query: ListSuppressionsRequest): Promise<ListEnvelope<Suppression>> {
    return toListPage(await this.suppressions.list(ctx.workspace_id, query), query.limit, renderSuppression);
  }

  /** An entry asked for through the API (`sequences.suppressions.create`). */
  async add(ctx: RequestContext, body: CreateSuppressionRequest): Promise<Suppression> {
    if (body?.type !== 'email' && body?.type !== 'domain') throw DomainError.invalid('type', 'type must be email or domain');
    if (typeof body.value !== 'string' || !body.value.trim()) throw DomainError.invalid(body.type, `${body.type} is required`);
    if (!(SUPPRESSION_REASONS as readonly string[]).includes(body.reason)) throw DomainError.invalid('reason', 'unknown reason');
    // global entries come only from the application side (the admin CLI's key id) and the opt-out portal
    if (body.scope === 'global' && ctx.key_id !== 'admin-cli') throw DomainError.invalid('scope', 'global entries come from the opt-out portal');
    return this.create(ctx, body);
  }

  /**
   * Adds an entry (an existing identical entry is returned as it is) and applies it at once:
   * queued emails to covered addresses are cancelled and their active enrollments stop.
   */
  async create(ctx: RequestContext, body: CreateSuppressionRequest, stopReason: 'suppressed' | 'unsubscribed' = 'suppressed', announceTo: string[] = []): Promise<Suppression> {
    return this.uow.run((tx) => this.createIn(tx, ctx, body, stopReason, announceTo));
  }

  /** `announceTo`: for a global `opt_out`, workspaces told besides those that had the address enrolled (the ones with it as a lead). */
  async createIn(tx: Tx, ctx: RequestContext, body: CreateSuppressionRequest, stopReason: 'suppressed' | 'unsubscribed', announceTo: string[] = []): Promise<Suppression> {
    const value = body.type === 'email' ? normalizeEmail(body.value) : normalizeDomain(body.value);
    const scope = body.scope ?? 'workspace';
    const workspaceId = scope === 'global' ? null : ctx.workspace_id;
    const row = await this.suppressions.insert(tx.manager, { id: newId(ID_PREFIX.suppression), workspace_id: workspaceId, scope, type: body.type, value, reason: body.reason });
    if (!row) {
      const existing = await this.suppressions.findEntry(tx.manager, workspaceId, body.type, value);
      if (!existing) throw DomainError.conflict('The suppression list changed concurrently; retry');
      return renderSuppression(existing);
    }
    const suppression = renderSuppression(row);
    await this.suppressions.stopCoveredEnrollments(tx.client, row, stopReason);
    await this.suppressions.cancelCoveredMessages(tx.client, row);
    if (body.reason === 'unsubscribe' && workspaceId) {
      await recordEvent(tx.client, { type: EVENT.unsubscribeCreated, workspace_id: workspaceId, livemode: ctx.livemode, api_version: ctx.api_version, object: suppression });
    }
    if (scope === 'global' && body.reason === 'opt_out') {
      // every workspace that had the address enrolled, or as a lead (announceTo), learns of the opt-out: once each
      for (const workspace_id of await this.suppressions.workspacesEnrolling(tx.client, row.id, announceTo)) {
        await recordEvent(tx.client, { type: EVENT.unsubscribeCreated, workspace_id, livemode: true, api_version: ctx.api_version, object: suppression });
      }
    }
    return suppression;
  }

  /** The emails among `emails` that a workspace or global entry covers (lower-cased). */
  async suppressedAmong(workspaceId: string, emails: string[], db?: Queryable): Promise<Set<string>> {
    if (emails.length === 0) return new Set();
    const lowered = emails.map(normalizeEmail);
    const domains = [...new Set(lowered.flatMap(domainCandidates))];
    const rows = await this.suppressions.matching(workspaceId, lowered, domains, db);
    const emailHits = new Set(rows.filter((r) => r.type === 'email').map((r) => r.value));
    const domainHits = new Set(rows.filter((r) => r.type === 'domain').map((r) => r.value));
    return new Set(lowered.filter((e) => emailHits.has(e) || domainCandidates(e).some((d) => domainHits.has(d))));
  }
}
