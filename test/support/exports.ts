import { ApiResponse, TestMesh } from '../harness';
import { ISO_DATE_TIME } from './leads';
import { allowance } from './timing';

/** Helpers of the export end-to-end tests. */

export const EXPORT_COLUMNS = [
  'id', 'full_name', 'first_name', 'last_name', 'title', 'email', 'phone', 'company_name', 'website', 'country', 'lens',
  'tags', 'stage', 'lawful_basis', 'created_at', 'updated_at',
];

/** The Export resource: every field of the spec, and its status's rules. */
export function expectExport(exp: any): void {
  expect(Object.keys(exp).sort()).toEqual(
    ['completed_at', 'created_at', 'download_url', 'expires_at', 'filter', 'format', 'id', 'livemode', 'object', 'row_count', 'status'],
  );
  expect(exp.id).toMatch(/^exp_/);
  expect(exp.object).toBe('export');
  expect(['queued', 'processing', 'completed', 'failed']).toContain(exp.status);
  expect(['csv', 'json']).toContain(exp.format);
  expect(exp.filter).toEqual(expect.any(Object));
  expect(exp.created_at).toMatch(ISO_DATE_TIME);
  if (exp.status === 'completed') {
    expect(Number.isInteger(exp.row_count)).toBe(true);
    expect(exp.download_url).toMatch(/^https?:\/\/.+\/exports\/exp_[^/]+\/download\?expires=\d+&signature=[0-9a-f]{64}$/);
    expect(exp.completed_at).toMatch(ISO_DATE_TIME);
    expect(exp.expires_at).toMatch(ISO_DATE_TIME);
    const ttl = Date.parse(exp.expires_at) - Date.parse(exp.completed_at);
    expect(ttl).toBeGreaterThan(24 * 3600 * 1000 - 1000);
    expect(ttl).toBeLessThanOrEqual(24 * 3600 * 1000);
    expect(new URL(exp.download_url).searchParams.get('expires')).toBe(String(Date.parse(exp.expires_at) / 1000));
  } else {
    expect(exp.row_count).toBeNull();
    expect(exp.download_url).toBeNull();
    expect(exp.expires_at).toBeNull();
    expect(exp.completed_at).toBeNull();
  }
}

export async function createExport(mesh: TestMesh, key: string, body: object, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const res = await mesh.request('POST', '/exports', { key, body, headers });
  expect({ status: res.status, text: res.text }).toEqual({ status: 202, text: expect.any(String) });
  expectExport(res.body);
  return res;
}

/** Polls GET /exports/{id} until the job is completed or failed. */
export async function waitForExport(mesh: TestMesh, key: string, id: string, timeoutMs = allowance(30_000)): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await mesh.request('GET', `/exports/${id}`, { key });
    expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: expect.any(String) });
    expectExport(res.body);
    if (res.body.status === 'completed' || res.body.status === 'failed') return res.body;
    if (Date.now() > deadline) throw new Error(`export ${id} still ${res.body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

export interface Download {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** GET of a download URL as a browser would: no Authorization header. */
export async function download(url: string, headers: Record<string, string> = {}): Promise<Download> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** A strict RFC 4180 reader: CRLF record ends, quoted fields with doubled quotes. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
        if (text[i] === '"') throw new Error(`bare quote in an unquoted field at ${i}`);
        field += text[i++];
      }
    }
    record.push(field);
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
      continue;
    }
    if (i >= text.length) break;
    throw new Error(`record not ended by CRLF at ${i}: ${JSON.stringify(text.slice(i, i + 10))}`);
  }
  if (record.length > 0) throw new Error('last record not ended by CRLF');
  return records;
}

/** CSV records as objects keyed by the header row. */
export function csvObjects(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  expect(header).toEqual(EXPORT_COLUMNS);
  return rows.map((row) => {
    expect(row).toHaveLength(header.length);
    return Object.fromEntries(header.map((name, i) => [name, row[i]]));
  });
}

/** Inserts `count` leads straight into crm's database (fast: one statement). */
export async function insertLeads(mesh: TestMesh, workspaceId: string, count: number, prefix = 'Bulk'): Promise<void> {
  await mesh.query(
    'crm',
    `INSERT INTO leads (id, workspace_id, lens, full_name, first_name, last_name, email, phone, company_name, country, lawful_basis, tags, revealed)
     SELECT 'lead_' || lpad(g::text, 10, '0') || $2 || substr(md5(random()::text), 1, 8), $1, 'leads', $2 || ' ' || g, $2, 'N' || g,
            lower($2) || g || '@bulk.example', '+1415555' || lpad((g % 10000)::text, 4, '0'), 'Bulk Co', 'US', 'legitimate_interest',
            ARRAY['bulk'], g % 2 = 0
     FROM generate_series(1, $3::int) AS g`,
    [workspaceId, prefix, count],
  );
}
