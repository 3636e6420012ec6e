import { EXPORT_COLUMNS, ExportFilter, ExportFormat } from '@app/contracts';

/**
 * How an export's rows are selected and written. PostgreSQL formats every value as text
 * (timestamps in the API's ISO form, tags joined, unrevealed contact fields blanked, and for
 * JSON the whole object), so Node parses no types and only joins strings.
 */

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
};

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The value of each column, as SQL over `leads`; `tags` differs per format. */
const COLUMN_SQL: Record<(typeof EXPORT_COLUMNS)[number], string> = {
  id: 'id',
  full_name: 'full_name',
  first_name: 'first_name',
  last_name: 'last_name',
  title: 'title',
  // only revealed contact fields leave the CRM
  email: 'CASE WHEN revealed THEN email END',
  phone: 'CASE WHEN revealed THEN phone END',
  company_name: 'company_name',
  website: 'website',
  country: 'country',
  lens: 'lens',
  tags: `array_to_string(tags, ';')`,
  stage: 'stage_name',
  lawful_basis: 'lawful_basis',
  created_at: ISO('created_at'),
  updated_at: ISO('updated_at'),
};

/** The SELECT list of a CSV export: one text column per export column, in order. */
export function csvSelectList(): string {
  return EXPORT_COLUMNS.map((c) => COLUMN_SQL[c]).join(', ');
}

/** The SELECT list of a JSON export: one column holding the row's JSON object. */
export function jsonSelectList(): string {
  const pairs = EXPORT_COLUMNS.map((c) => `'${c}', ${c === 'tags' ? 'tags' : COLUMN_SQL[c]}`);
  // json_build_object takes at most 100 arguments; 16 pairs are 32
  return `json_build_object(${pairs.join(', ')})::text`;
}

/**
 * `WHERE …` and its parameters for a workspace and an ExportFilter. A `list_id` matches the
 * members of that list only when the list is the workspace's own: an unknown list or another
 * workspace's matches no lead (docs/decisions.md).
 */
export function exportWhere(workspaceId: string, filter: ExportFilter): { where: string; values: unknown[] } {
  const values: unknown[] = [workspaceId];
  const clauses = ['workspace_id = $1'];
  const add = (clause: (p: string) => string, value: unknown) => {
    if (value === undefined || value === null) return;
    values.push(value);
    clauses.push(clause(`$${values.length}`));
  };
  add((p) => `lens = ${p}`, filter.lens);
  add((p) => `tags @> ARRAY[${p}]::text[]`, filter.tag);
  add((p) => `pipeline_id = ${p}`, filter.pipeline_id);
  add((p) => `stage_id = ${p}`, filter.stage_id);
  add((p) => `updated_at > ${p}::timestamptz`, filter.updated_since);
  add((p) => `id IN (SELECT m.lead_id FROM list_members m JOIN lists l ON l.id = m.list_id WHERE l.workspace_id = $1 AND m.list_id = ${p})`, filter.list_id);
  return { where: clauses.join(' AND '), values };
}

/** The export's query: oldest lead first (ids sort by creation time). */
export function exportQuery(workspaceId: string, filter: ExportFilter, format: ExportFormat): { text: string; values: unknown[] } {
  const { where, values } = exportWhere(workspaceId, filter);
  const select = format === 'csv' ? csvSelectList() : jsonSelectList();
  return { text: `SELECT ${select} FROM leads WHERE ${where} ORDER BY id`, values };
}

// ---------------------------------------------------------------------------------------------
// CSV (RFC 4180)

const NEEDS_QUOTES = /[",\r\n]/;
/**
 * Characters that make a spreadsheet read a cell as a formula (CSV injection): such a value gets
 * a leading `'`, which spreadsheets show as text. Tab and CR are included (OWASP).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field: null and '' are empty; quoted when it holds a quote, comma, CR or LF. */
export function csvField(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One CSV record, CRLF-terminated. */
export function csvRecord(values: readonly (string | null | undefined)[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += ',';
    line += csvField(values[i]);
  }
  return `${line}\r\n`;
}

export const CSV_HEADER = csvRecord(EXPORT_COLUMNS);

/**
 * Turns batches of rows (arrays of text, in EXPORT_COLUMNS order for CSV; one JSON text for
 * JSON) into the file's bytes: `open` before the first batch, `close` after the last.
 */
export interface ExportEncoder {
  open(): string;
  batch(rows: unknown[][]): string;
  close(): string;
}

export function csvEncoder(): ExportEncoder {
  return {
    open: () => CSV_HEADER,
    batch: (rows) => {
      let out = '';
      for (const row of rows) out += csvRecord(row as (string | null)[]);
      return out;
    },
    close: () => '',
  };
}

/** A JSON array, one object per line: `[\n{…},\n{…}\n]\n`. */
export function jsonEncoder(): ExportEncoder {
  let first = true;
  return {
    open: () => '[',
    batch: (rows) => {
      let out = '';
      for (const row of rows) {
        out += first ? '\n' : ',\n';
        first = false;
        out += row[0] as string;
      }
      return out;
    },
    close: () => (first ? ']\n' : '\n]\n'),
  };
}

export function encoderFor(format: ExportFormat): ExportEncoder {
  return format === 'csv' ? csvEncoder() : jsonEncoder();
}
