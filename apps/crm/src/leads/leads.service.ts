import { Injectable } from '@nestjs/common';
import {
  CompanyFact, CreateLeadDto, DeletedEnvelope, EVENT, ID_PREFIX, Lead, LeadContact, LeadStageChange, ListEnvelope, ListLeadsRequest,
  RequestContext, Source, UpdateLeadDto,
} from '@app/contracts';
import { DomainError, eventsCommitted, newId, recordEvent, relayInProcess, statementEvent, toListPage, UnitOfWork } from '@app/platform';
import { CompaniesRepository } from '../companies/companies.repository';
import { OrganizationsClient } from '../companies/organizations.client';
import { PipelinesRepository } from '../pipelines/pipelines.repository';
import { normalizeDomain } from '../companies/company-domain';
import { LeadRow, renderLead } from './lead.mapper';
import { LeadsRepository, NewLeadAtEntry } from './leads.repository';
import { toE164 } from './phone';

const UNIQUE_VIOLATION = '23505';

/** Fields whose provenance is recorded when a lead arrives with a `source_url`. */
const SOURCED_FIELDS = ['first_name', 'last_name', 'full_name', 'title', 'email', 'phone', 'website', 'company_name', 'country'] as const;

function joinName(first: string | null | undefined, last: string | null | undefined): string {
  return [first?.trim(), last?.trim()].filter(Boolean).join(' ');
}

function blankToNull(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function normalizePhone(raw: string | null | undefined, country: string | null): string | null {
  if (raw === undefined || raw === null || raw.trim() === '') return null;
  const e164 = toE164(raw, country);
  if (!e164) throw DomainError.invalid('phone', 'phone is not a valid phone number (use international format, or set country)');
  return e164;
}

@Injectable()
export class LeadsService {
  constructor(
    private readonly leads: LeadsRepository,
    private readonly companies: CompaniesRepository,
    private readonly pipelines: PipelinesRepository,
    private readonly organizations: OrganizationsClient,
    private readonly uow: UnitOfWork,
  ) {}

  async list(ctx: RequestContext, query: ListLeadsRequest): Promise<ListEnvelope<Lead>> {
    const rows = await this.leads.list(ctx.workspace_id, query);
    return toListPage(rows, query.limit, renderLead);
  }

  async get(ctx: RequestContext, id: string): Promise<Lead> {
    const row = await this.leads.findById(ctx.workspace_id, id);
    if (!row) throw DomainError.notFound('lead', id, 'id');
    return renderLead(row);
  }

  /** The contact fields of the workspace's leads among `ids` (unknown ids are simply absent), in one query. */
  async contactsOf(ctx: RequestContext, ids: unknown): Promise<LeadContact[]> {
    if (!Array.isArray(ids) || ids.length > 1000 || ids.some((id) => typeof id !== 'string')) {
      throw DomainError.invalid('ids', 'ids must be an array of at most 1000 lead ids');
    }
    return this.leads.contacts(ctx.workspace_id, ids as string[]);
  }

  /** Every workspace with a lead at `email` (case-insensitive): a global opt-out is announced to each. */
  async workspacesByEmail(email: unknown): Promise<{ workspace_ids: string[] }> {
    if (typeof email !== 'string' || !email.includes('@') || email.length > 320) throw DomainError.invalid('email', 'email must be an email address');
    return { workspace_ids: await this.leads.workspacesWithEmail(email.trim()) };
  }

  async create(ctx: RequestContext, body: CreateLeadDto): Promise<Lead> {
    const country = body.country ? body.country.toUpperCase() : null;
    const firstName = blankToNull(body.first_name);
    const lastName = blankToNull(body.last_name);
    const givenFullName = blankToNull(body.full_name);
    const fullName = givenFullName ?? joinName(firstName, lastName);
    const email = blankToNull(body.email);
    const phone = normalizePhone(body.phone, country);
    const domain = body.company_domain ? normalizeDomain(body.company_domain) : null;
    if (body.company_domain && !domain) throw DomainError.invalid('company_domain', 'company_domain must be a domain name');
    const companyName = blankToNull(body.company_name) ?? domain;
    const tags = [...new Set(body.tags ?? [])];
    const fetchedAt = new Date().toISOString();
    const stored: Record<(typeof SOURCED_FIELDS)[number], string | null> = {
      first_name: firstName, last_name: lastName, full_name: fullName, title: blankToNull(body.title), email,
      phone, website: body.website ?? null, company_name: companyName, country,
    };
    const sources: Source[] = body.source_url
      ? SOURCED_FIELDS.filter((field) => stored[field]).map((field) => ({
          field, value: stored[field] as string, source_url: body.source_url as string, provider: 'api', fetched_at: fetchedAt,
        }))
      : [];
    // what the lead says of its company (its country), after what the organisation record says
    // when the lead brings a company the workspace does not have yet (asked before the transaction)
    const companyFacts: CompanyFact[] = [];
    if (companyName && !(await this.companies.exists(ctx.workspace_id, blankToNull(body.company_name), domain))) {
      companyFacts.push(...(await this.organizations.factsOf(ctx, domain, blankToNull(body.company_name))));
    }
    if (country) companyFacts.push({ field: 'country', value: country, source: sources.find((s) => s.field === 'country') ?? null });

    try {
      const id = newId(ID_PREFIX.lead);
      const newLead: NewLeadAtEntry = {
        id,
        workspace_id: ctx.workspace_id,
        lens: body.lens ?? 'leads',
        first_name: firstName,
        last_name: lastName,
        full_name: fullName,
        full_name_derived: givenFullName === null,
        title: stored.title,
        email,
        email_status: null,
        email_confidence: null,
        phone,
        website: stored.website,
        company_id: null,
        company_name: null,
        country,
        revealed: false,
        lawful_basis: body.lawful_basis ?? 'legitimate_interest',
        owner_id: ctx.member_id,
        tags,
        custom_fields: body.custom_fields ?? {},
        sources,
      };
      const created = (object: Lead) => ({ type: EVENT.leadCreated, workspace_id: ctx.workspace_id, livemode: ctx.livemode, api_version: ctx.api_version, object });
      // A lead with nothing else to write (no company, no tags, no Idempotency-Key to record) is one
      // statement with its event (insertAtEntryStageWithEvent), when this process's relay can be
      // woken after it; otherwise one transaction writes what it brings, the lead and its event.
      if (!companyName && tags.length === 0 && !ctx.idempotency && relayInProcess()) {
        await this.pipelines.ensureProvisioned(ctx.workspace_id);
        // the lead as the event carries it, but for its entry stage and timestamps: markers the statement fills in
        const event = statementEvent(
          created(renderLead({ ...newLead, pipeline_id: null, stage_id: null, stage_name: null, created_at: new Date(0), updated_at: new Date(0) })),
          ['stage', 'created_at', 'updated_at'],
        );
        const row = await this.leads.insertAtEntryStageWithEvent(newLead, event);
        eventsCommitted();
        return renderLead(row);
      }
      return await this.uow.run((tx) => {
        const earlier = async (earlierId: string) => {
          const row = await this.leads.findById(ctx.workspace_id, earlierId, tx);
          return row && renderLead(row);
        };
        return this.leads.createKeys.run(tx, ctx, id, async () => {
          const company = companyName
            ? await this.companies.findOrCreate(tx, ctx.workspace_id, blankToNull(body.company_name), domain,
                sources.filter((s) => s.field === 'company_name'))
            : null;
          if (company) await this.companies.applyFacts(tx, ctx.workspace_id, company.id, companyFacts);
          await this.leads.ensureTags(tx, ctx.workspace_id, tags);
          await this.pipelines.provision(tx, ctx.workspace_id);
          const row = await this.leads.insertAtEntryStage(tx, { ...newLead, company_id: company?.id ?? null, company_name: company?.name ?? null });
          const lead = renderLead(row);
          await recordEvent(tx, created(lead));
          return lead;
        }, earlier);
      });
    } catch (err) {
      if ((err as { code?: string; constraint?: string }).constraint === 'leads_workspace_email' && email) {
        const existing = await this.leads.findIdByEmail(ctx.workspace_id, email);
        throw DomainError.conflict(`A lead with email '${email}' already exists in this workspace: ${existing ?? 'unknown'}`, 'email');
      }
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw DomainError.conflict('The lead was changed concurrently by another request; retry');
      throw err;
    }
  }

  async update(ctx: RequestContext, id: string, body: UpdateLeadDto): Promise<Lead> {
    return this.uow.run(async (tx) => {
      const current = await this.leads.findById(ctx.workspace_id, id, tx, true);
      if (!current) throw DomainError.notFound('lead', id, 'id');
      const next: Partial<LeadRow> = {};
      if (body.first_name !== undefined) next.first_name = blankToNull(body.first_name);
      if (body.last_name !== undefined) next.last_name = blankToNull(body.last_name);
      if (body.title !== undefined) next.title = blankToNull(body.title);
      if (body.country !== undefined) next.country = body.country ? body.country.toUpperCase() : null;
      if (body.phone !== undefined) next.phone = normalizePhone(body.phone, next.country !== undefined ? next.country : current.country);
      if (body.website !== undefined) next.website = body.website;
      if (body.lawful_basis !== undefined) next.lawful_basis = body.lawful_basis;
      if (body.owner_id !== undefined) next.owner_id = body.owner_id;
      if (body.custom_fields !== undefined) {
        const merged = { ...current.custom_fields };
        for (const [key, value] of Object.entries(body.custom_fields)) {
          if (value === null) delete merged[key];
          else merged[key] = value;
        }
        next.custom_fields = merged;
      }
      if (current.full_name_derived && (next.first_name !== undefined || next.last_name !== undefined)) {
        const derived = joinName(next.first_name !== undefined ? next.first_name : current.first_name,
          next.last_name !== undefined ? next.last_name : current.last_name);
        if (!derived) throw DomainError.invalid('first_name', 'first_name and last_name cannot both be empty: the lead has no other name');
        next.full_name = derived;
      }

      const changed: Partial<LeadRow> = {};
      const previous: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(next) as [keyof LeadRow, unknown][]) {
        if (JSON.stringify(current[key]) !== JSON.stringify(value)) {
          (changed as Record<string, unknown>)[key] = value;
          previous[key] = current[key];
        }
      }
      if (Object.keys(changed).length === 0) return renderLead(current);
      const row = await this.leads.update(tx, ctx.workspace_id, id, changed);
      const lead = renderLead(row);
      await recordEvent(tx, {
        type: EVENT.leadUpdated, workspace_id: ctx.workspace_id, livemode: ctx.livemode, api_version: ctx.api_version,
        object: lead, previous_attributes: previous,
      });
      return lead;
    });
  }

  /** Moves a lead to a stage of one of the workspace's pipelines; a move to where it is changes nothing. */
  async moveStage(ctx: RequestContext, id: string, stageId: string): Promise<Lead> {
    return this.uow.run(async (tx) => {
      const stage = await this.pipelines.findStage(tx, ctx.workspace_id, stageId);
      if (!stage) throw DomainError.notFound('stage', stageId, 'stage_id');
      const current = await this.leads.findById(ctx.workspace_id, id, tx, true);
      if (!current) throw DomainError.notFound('lead', id, 'id');
      if (current.stage_id === stage.id) return renderLead(current);
      const row = await this.leads.update(tx, ctx.workspace_id, id, { pipeline_id: stage.pipeline_id, stage_id: stage.id, stage_name: stage.name });
      const lead = renderLead(row);
      const change: LeadStageChange = {
        object: 'lead_stage_change',
        lead_id: lead.id,
        pipeline_id: stage.pipeline_id,
        from_stage: renderLead(current).stage,
        to_stage: lead.stage,
        changed_at: lead.updated_at,
      };
      await recordEvent(tx, { type: EVENT.leadStageChanged, workspace_id: ctx.workspace_id, livemode: ctx.livemode, api_version: ctx.api_version, object: change });
      return lead;
    });
  }

  async delete(ctx: RequestContext, id: string): Promise<DeletedEnvelope> {
    return this.uow.run(async (tx) => {
      const row = await this.leads.delete(tx, ctx.workspace_id, id);
      if (!row) throw DomainError.notFound('lead', id, 'id');
      const deleted: DeletedEnvelope = { id: row.id, object: 'lead', deleted: true };
      await recordEvent(tx, { type: EVENT.leadDeleted, workspace_id: ctx.workspace_id, livemode: ctx.livemode, api_version: ctx.api_version, object: { ...deleted, email: row.email } });
      return deleted;
    });
  }
}
