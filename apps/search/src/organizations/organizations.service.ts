import { Injectable } from '@nestjs/common';
import { CompanyFact, MatchOrganizationRequest } from '@app/contracts';
import { EntitiesRepository } from '../entities/entities.repository';
import { companyFactsOf } from '../reveals/provenance';

const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

@Injectable()
export class OrganizationsService {
  constructor(private readonly entities: EntitiesRepository) {}

  /** crm creating a company: what the matching organisation record says of it (none: []). */
  async factsOf(body: MatchOrganizationRequest): Promise<CompanyFact[]> {
    const record = await this.entities.findOrganization(text(body?.domain)?.toLowerCase() ?? null, text(body?.name));
    return record ? companyFactsOf(record) : [];
  }
}
