import { ApiResponse, TestMesh } from '../harness';

/**
 * Assertions of the spec's cross-cutting rules (Errors, Limits), shared by the gateway
 * end-to-end tests.
 */

export const RATE_LIMIT = 120;
export const CURRENT_VERSION = '2026-09-28';

/** `error.type` is given by the spec for these codes only; the others must merely be present. */
const KNOWN_TYPES: Record<string, string> = {
  invalid_request: 'invalid_request_error',
  rate_limited: 'rate_limit_error',
};

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every response, successful or not, carries a non-empty Request-Id. */
export function expectRequestId(res: ApiResponse): string {
  const id = res.headers.get('request-id');
  expect(typeof id).toBe('string');
  expect((id as string).trim()).not.toBe('');
  return id as string;
}

/**
 * One error object: status, `error.code`, `error.type`, a message, `doc_url` anchored by the
 * code, `param` when one is expected, Request-Id, and a JSON body holding nothing but `error`.
 */
export function expectApiError(res: ApiResponse, status: number, code: string, param?: string): void {
  const context = `${res.status} ${res.text}`;
  expect({ status: res.status, context }).toEqual({ status, context });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expectRequestId(res);
  expect(res.body).toBeDefined();
  expect(Object.keys(res.body)).toEqual(['error']);
  const error = res.body.error;
  expect(error.code).toBe(code);
  if (KNOWN_TYPES[code]) expect(error.type).toBe(KNOWN_TYPES[code]);
  else expect(error.type).toEqual(expect.stringMatching(/\S/));
  expect(error.message).toEqual(expect.stringMatching(/\S/));
  expect(typeof error.doc_url).toBe('string');
  const docUrl = new URL(error.doc_url);
  expect(docUrl.hash).toBe(`#${code}`);
  if (param !== undefined) expect(error.param).toBe(param);
}

export interface RateLimitHeaders {
  limit: number;
  remaining: number;
  reset: number;
}

/** RateLimit-Limit, -Remaining and -Reset (seconds until the window ends, 1..60) as integers. */
export function expectRateLimitHeaders(res: ApiResponse, limit = RATE_LIMIT): RateLimitHeaders {
  const read = (name: string) => {
    const value = res.headers.get(name);
    expect({ name, value }).toEqual({ name, value: expect.stringMatching(/^\d+$/) });
    return Number(value);
  };
  const headers = { limit: read('ratelimit-limit'), remaining: read('ratelimit-remaining'), reset: read('ratelimit-reset') };
  expect(headers.limit).toBe(limit);
  expect(headers.remaining).toBeGreaterThanOrEqual(0);
  expect(headers.remaining).toBeLessThanOrEqual(limit);
  expect(headers.reset).toBeGreaterThanOrEqual(1);
  expect(headers.reset).toBeLessThanOrEqual(60);
  return headers;
}

/** Runs `count` calls, `size` at a time concurrently, results in call order. */
export async function inBatches<T>(count: number, size: number, call: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += size) {
    const batch = Array.from({ length: Math.min(size, count - start) }, (_, i) => call(start + i));
    results.push(...(await Promise.all(batch)));
  }
  return results;
}

/** Leads of a workspace as its key sees them (first 100; the tests stay below that). */
export async function listLeads(mesh: TestMesh, key: string, query = ''): Promise<any[]> {
  const res = await mesh.request('GET', `/leads?limit=100${query ? `&${query}` : ''}`, { key });
  expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: expect.any(String) });
  expect(res.body.has_more).toBe(false);
  return res.body.data;
}

/** Leads stored for a workspace, read from crm's database (for keys that may not read them). */
export async function storedLeadCount(mesh: TestMesh, workspaceId: string): Promise<number> {
  const rows = await mesh.query<{ n: number }>('crm', 'SELECT count(*)::int AS n FROM leads WHERE workspace_id = $1', [workspaceId]);
  return rows[0].n;
}

/** The envelope of the event crm recorded for a lead. */
export async function leadEvent(mesh: TestMesh, type: string, leadId: string): Promise<any> {
  const rows = await mesh.query<{ envelope: any }>(
    'crm',
    `SELECT envelope FROM outbox WHERE type = $1 AND envelope->'data'->'object'->>'id' = $2 ORDER BY seq`,
    [type, leadId],
  );
  expect(rows).toHaveLength(1);
  return rows[0].envelope;
}
