import { Export, ExportFilter, ExportFormat, ExportStatus } from '@app/contracts';
import { ExportLinkConfig, exportDownloadUrl } from '@app/platform';

/** An exports row (migration 0006_exports). */
export interface ExportRow {
  id: string;
  workspace_id: string;
  livemode: boolean;
  status: ExportStatus;
  format: ExportFormat;
  filter: ExportFilter;
  row_count: number | null;
  file_key: string | null;
  error: string | null;
  attempts: number;
  locked_by: string | null;
  locked_until: Date | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  expires_at: Date | null;
}

export const EXPORT_COLUMNS_SQL = `id, workspace_id, livemode, status, format, filter, row_count, file_key, error, attempts,
  locked_by, locked_until, created_at, started_at, completed_at, expires_at`;

/** The Export resource; the signed download URL is derived from the row, never stored. */
export function renderExport(row: ExportRow, link: ExportLinkConfig): Export {
  const downloadable = row.status === 'completed' && row.expires_at !== null;
  return {
    id: row.id,
    object: 'export',
    livemode: row.livemode,
    status: row.status,
    format: row.format,
    filter: row.filter,
    row_count: row.status === 'completed' ? row.row_count : null,
    download_url: downloadable ? exportDownloadUrl(link, row.id, row.expires_at as Date) : null,
    expires_at: downloadable ? (row.expires_at as Date).toISOString() : null,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at ? row.completed_at.toISOString() : null,
  };
}
