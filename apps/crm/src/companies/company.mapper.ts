import { Company } from '@app/contracts';
import { CompanyEntity } from './company.entity';

export function renderCompany(row: CompanyEntity): Company {
  return {
    id: row.id,
    object: 'company',
    name: row.name,
    domain: row.domain,
    industry: row.industry,
    size: row.size,
    country: row.country,
    city: row.city,
    description: row.description,
    lead_count: row.lead_count,
    sources: row.sources,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
