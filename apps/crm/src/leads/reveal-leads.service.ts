import { Injectable } from '@nestjs/common';
import { EVENT, ID_PREFIX, Lead, RequestContext, Source, UpsertFromRevealRequest } from '@app/contracts';
import { DomainError, newId, recordEvent, UnitOfWork } from '@app/platform';
import { CompaniesRepository } from '../companies/companies.repository';
import { normalizeDomain } from '../companies/company-domain';
import { PipelinesRepository } from '../pipelines/pipelines.repository';
import { renderLead } from './lead.mapper';
import { LeadsRepository } from './leads.repository';

/**
 * The lead of a revealed search entity (asked by search's reveal saga): an existing lead with the
 * same email in the workspace is updated (revealed, checked email, provenance added), otherwise
 * a lead is created. Serialised per workspace and email by an advisory lock, so concurrent or
 * repeated sagas never make two leads.
 */
@Injectable()
export class RevealLeadsService {
  constructor(
    private readonly leads: LeadsRepository,
    private readonly companies: CompaniesRepository,
    private readonly pipelines: PipelinesRepository,
    private readonly uow: UnitOfWork,
  ) {}

  async upsert(ctx: RequestContext, req: UpsertFromRevealRequest): Promise<Lead> {
    if (!req || typeof req.full_name !== 'string' || req.full_name === '') throw DomainError.invalid('full_name', 'full_name is required');
    const sources: Source[] = Array.isArray(req.sources) ? req.sources : [];
    return this.uow.run(async (tx) => {
      await this.leads.lockReveal(tx, ctx.workspace_id, req.email ?? req.entity_id);
      const existingId = req.email ? await this.leads.findIdByEmail(ctx.workspace_id, req.email, tx) : undefined;
      if (existingId) {
        const before = await this.leads.findById(ctx.workspace_id, existingId, tx, true);
        if (before) {
          const changes = {
            revealed: true,
            email_status: req.email_status,
            email_confidence: req.email_confidence,
            phone: before.phone ?? req.phone,
            sources: [...(before.sources ?? []), ...sources.filter((s) => !(before.sources ?? []).some((b) => b.field === s.field && b.source_url === s.source_url))],
          };
          const row = await this.leads.update(tx, ctx.workspace_id, existingId, changes);
          const lead = renderLead(row);
          await recordEvent(tx, {
            type: EVENT.leadUpdated, workspace_id: ctx.workspace_id, livemode: ctx.livemode, api_version: ctx.api_version, object: lead,
            previous_attributes: { revealed: before.revealed, email_status: before.email_status, email_confidence: before.email_confidence, phone: before.phone },
          });
          return lead;
        }
      }
      const domain = req.company_domain ? normalizeDomain(req.company_domain) : null;
      const company = req.company_name
        ? await this.companies.findOrCreate(tx, ctx.workspace_id, req.company_name, domain, sources.filter((s) => s.field === 'organization'))
        : null;
      if (company) await this.companies.applyFacts(tx, ctx.workspace_id, company.id, Array.isArray(req.company_facts) ? req.company_facts : []);
      await this.pipelines.provision(tx, ctx.workspace_id);
      const row = await this.leads.insertAtEntryStage(tx, {
        id: newId(ID_PREFIX.lead),
        workspace_id: ctx.workspace_id,
        lens: req.lens,
        first_name: req.first_name,
        last_name: req.last_name,
        full_name: req.full_name,
        full_name_derived: false,
        title: req.title,
        email: req.email,
        email_status: req.email_status,
        email_confidence: req.email_confidence,
        phone: req.phone,
        website: domain ? `https://${domain}` : null,
        company_id: company?.id ?? null,
        company_name: company?.name ?? null,
        country: req.country && /^[A-Z]{2}$/.test(req.country) ? req.country : null,
        revealed: true,
        lawful_basis: 'legitimate_interest',
        owner_id: ctx.member_id,
        tags: [],
        custom_fields: {},
        sources,
      });
      const lead = renderLead(row);
      await recordEvent(tx, { type: EVENT.leadCreated, workspace_id: ctx.workspace_id, livemode: ctx.livemode, api_version: ctx.api_version, object: lead });
      return lead;
    });
  }
}
