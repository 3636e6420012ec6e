import { Company } from '@app/contracts';

export interface CompanyRow extends Omit<Company, 'object' | 'created_at' | 'updated_at'> {
  workspace_id: string;
  created_at: Date;
  updated_at: Date;
}

export const COMPANY_COLUMNS =
  'id, workspace_id, name, domain, industry, size, country, city, description, lead_count, sources, created_at, updated_at';

export function renderCompany(row: CompanyRow): Company {
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
