import { ApiProperty, ApiSchema } from '../api-docs';
import { LENSES, Lens } from '../enums';
import { ConstProperty, DateTimeProperty, IdProperty, LivemodeProperty } from './api-property';

export const EXPORT_FORMATS = ['csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** Which leads an export holds; every field optional, an empty filter exports every lead. */
@ApiSchema({ description: 'Every field optional; an empty filter exports every lead.' })
export class ExportFilter {
  @ApiProperty({ enum: LENSES, required: false })
  lens?: Lens;

  @ApiProperty({ type: 'string', required: false })
  tag?: string;

  @ApiProperty({ type: 'string', required: false })
  pipeline_id?: string;

  @ApiProperty({ type: 'string', required: false })
  stage_id?: string;

  @ApiProperty({
    type: 'string',
    description: "Members of a list of the workspace (lists are made in the application); an unknown list or another workspace's matches no lead.",
    required: false,
  })
  list_id?: string;

  @DateTimeProperty(undefined, { required: false })
  updated_since?: string;
}

/** The Export resource of the spec (plus `livemode`, as every resource made by a key). */
export class Export {
  @IdProperty('exp_')
  id!: string;

  @ConstProperty('export')
  object!: 'export';

  @ApiProperty({ enum: EXPORT_STATUSES })
  status!: ExportStatus;

  @ApiProperty({ enum: EXPORT_FORMATS })
  format!: ExportFormat;

  @ApiProperty({ type: ExportFilter })
  filter!: ExportFilter;

  @ApiProperty({ type: 'integer', description: 'Rows once completed.', nullable: true })
  row_count!: number | null;

  @ApiProperty({ type: 'string', description: 'Signed, set once completed, valid 24 hours.', format: 'uri', nullable: true })
  download_url!: string | null;

  @DateTimeProperty('When download_url stops working.', { nullable: true })
  expires_at!: string | null;

  @LivemodeProperty()
  livemode!: boolean;

  @DateTimeProperty()
  created_at!: string;

  @DateTimeProperty(undefined, { nullable: true })
  completed_at!: string | null;
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
