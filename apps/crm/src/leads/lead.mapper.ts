import { Lead, Source } from '@app/contracts';

/** A leads row: the Lead's own fields plus what the resource derives or leaves out. */
export interface LeadRow extends Omit<Lead, 'object' | 'stage' | 'created_at' | 'updated_at' | 'sources'> {
  workspace_id: string;
  full_name_derived: boolean;
  pipeline_id: string | null;
  stage_id: string | null;
  stage_name: string | null;
  sources?: Source[];
  created_at: Date;
  updated_at: Date;
}

/** The Lead resource of the spec; `sources` only when the row carries them (single reads). */
export function renderLead(row: LeadRow): Lead {
  const lead: Lead = {
    id: row.id,
    object: 'lead',
    lens: row.lens,
    first_name: row.first_name,
    last_name: row.last_name,
    full_name: row.full_name,
    title: row.title,
    email: row.email,
    email_status: row.email_status,
    email_confidence: row.email_confidence,
    phone: row.phone,
    website: row.website,
    company_id: row.company_id,
    company_name: row.company_name,
    country: row.country,
    revealed: row.revealed,
    lawful_basis: row.lawful_basis,
    owner_id: row.owner_id,
    tags: row.tags,
    stage:
      row.pipeline_id && row.stage_id && row.stage_name
        ? { pipeline_id: row.pipeline_id, stage_id: row.stage_id, name: row.stage_name }
        : null,
    custom_fields: row.custom_fields,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
  if (row.sources) lead.sources = row.sources;
  return lead;
}

export const LEAD_LIST_COLUMNS = `id, workspace_id, lens, first_name, last_name, full_name, full_name_derived, title, email,
  email_status, email_confidence, phone, website, company_id, company_name, country, revealed, lawful_basis, owner_id,
  tags, pipeline_id, stage_id, stage_name, custom_fields, created_at, updated_at`;
export const LEAD_COLUMNS = `${LEAD_LIST_COLUMNS}, sources`;
