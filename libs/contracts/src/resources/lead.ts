import { EmailStatus, LawfulBasis, Lens, SourceProvider } from '../enums';

export interface Source {
  field: string;
  value: string;
  source_url: string;
  provider: SourceProvider;
  fetched_at: string;
}

export interface StageRef {
  pipeline_id: string;
  stage_id: string;
  name: string;
}

export interface Lead {
  id: string;
  object: 'lead';
  lens: Lens;
  first_name: string | null;
  last_name: string | null;
  full_name: string;
  title: string | null;
  email: string | null;
  email_status: EmailStatus | null;
  email_confidence: number | null;
  phone: string | null;
  website: string | null;
  company_id: string | null;
  company_name: string | null;
  country: string | null;
  revealed: boolean;
  lawful_basis: LawfulBasis;
  owner_id: string | null;
  tags: string[];
  stage: StageRef | null;
  custom_fields: Record<string, CustomFieldValue>;
  created_at: string;
  updated_at: string;
  sources?: Source[];
}

export type CustomFieldValue = string | number | boolean;
