import { Lens } from '../enums';

export const EXPORT_FORMATS = ['csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** Which leads an export holds; every field optional, an empty filter exports every lead. */
export interface ExportFilter {
  lens?: Lens;
  tag?: string;
  pipeline_id?: string;
  stage_id?: string;
  list_id?: string;
  updated_since?: string;
}

/** The Export resource of the spec (plus `livemode`, as every resource made by a key). */
export interface Export {
  id: string;
  object: 'export';
  livemode: boolean;
  status: ExportStatus;
  format: ExportFormat;
  filter: ExportFilter;
  row_count: number | null;
  download_url: string | null;
  expires_at: string | null;
  created_at: string;
  completed_at: string | null;
}

/** What crm tells the gateway about an export's file when a signed download link is used. */
export interface ExportFile {
  id: string;
  workspace_id: string;
  format: ExportFormat;
  file_key: string;
}

/**
 * Columns of both export formats, in order (CSV header row; JSON object keys). `email` and
 * `phone` are empty (null in JSON) unless the lead was revealed; `tags` are joined with `;` in
 * CSV and an array in JSON; `stage` is the stage's name.
 */
export const EXPORT_COLUMNS = [
  'id', 'full_name', 'first_name', 'last_name', 'title', 'email', 'phone', 'company_name', 'website', 'country', 'lens',
  'tags', 'stage', 'lawful_basis', 'created_at', 'updated_at',
] as const;
