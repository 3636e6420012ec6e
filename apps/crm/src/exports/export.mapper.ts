import { Export } from '@app/contracts';
import { ExportLinkConfig, exportDownloadUrl } from '@app/platform';
import { ExportEntity } from './export.entity';

/** An exports row as EXPORT_COLUMNS_SQL reads it: the entity's columns but the create's idempotency record. */
export type ExportRow = Omit<ExportEntity, 'request_id' | 'idempotency_key' | 'request_hash'>;

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
