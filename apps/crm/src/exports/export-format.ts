import { EXPORT_COLUMNS, ExportFormat } from '@app/contracts';

/**
 * How an export's rows are written. Its query (ExportsRepository.withLeadCursor) has PostgreSQL
 * format every value as text (timestamps in the API's ISO form, tags joined, unrevealed contact
 * fields blanked, and for JSON the whole object), so Node parses no types and only joins strings.
 */

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
};

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
