/**
 * A typed client of the Lead Intelligence API. The types (`./api`) are generated from the
 * committed OpenAPI document, docs/openapi.json, so a path, parameter or field the API does not
 * have is a compile error; the calls go through openapi-fetch. On top of it:
 *
 * - `Idempotency-Key` on every POST, generated unless the call gives one, and kept across retries;
 * - `Retry-After`: a 429 or 503 is retried after the seconds the header gives (or a short backoff
 *   without one), at most `maxRetries` times and never after a wait longer than `maxRetryDelayMs`;
 * - cursor pagination: `paginate()` iterates over every item of a list, page after page
 *   (`starting_after` = the previous page's `next_cursor` until `has_more` is false), `pages()`
 *   over the list envelopes;
 * - `verifySignature()` for webhook deliveries (./signature).
 */
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { components, paths } from './api';

export { SIGNATURE_TOLERANCE_SECONDS, SignatureVerdict, verifySignature, VerifyOptions } from './signature';
export type { components, paths, webhooks } from './api';

export type Schemas = components['schemas'];
export type ApiErrorBody = Schemas['Error'];
export type WebhookEvent = Schemas['Event'];

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000/api/v1';
/** Statuses whose request did not run and may be sent again: rate limited, service unavailable. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export interface LeadIntelOptions {
  /** `svc_live_…` or `svc_test_…`. */
  apiKey: string;
  /** The API root, `/api/v1` included; default the local mesh's. */
  baseUrl?: string;
  /** `Service-Version` on every request; default the version pinned on the key. */
  apiVersion?: string;
  /** Retries of a 429 or 503 (default 3); 0 turns retrying off. */
  maxRetries?: number;
  /** A `Retry-After` longer than this (default 60 s) is not waited for: the answer is returned. */
  maxRetryDelayMs?: number;
  /** Makes an Idempotency-Key for a POST that has none (default a random UUID). */
  idempotencyKey?: () => string;
  /** The fetch the requests go through (default the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** How a wait is done (default setTimeout). */
  sleep?: (ms: number) => Promise<void>;
}

/** A failed call: the API's error object, its status and `Request-Id`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody | undefined,
    readonly requestId: string | null,
  ) {
    super(body?.error ? `${status} ${body.error.code}: ${body.error.message}` : `HTTP ${status}`);
    this.name = 'ApiError';
  }

  get code(): string | undefined {
    return this.body?.error?.code;
  }
}

const sleeper = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * How long to wait before retrying an answer: `Retry-After` in seconds or as an HTTP date, else
 * 0.5 s doubled per attempt.
 */
export function retryDelayMs(retryAfter: string | null, attempt: number, now = Date.now()): number {
  if (retryAfter !== null && retryAfter.trim() !== '') {
    const value = retryAfter.trim();
    if (/^\d+$/.test(value)) return Number(value) * 1000;
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return 500 * 2 ** attempt;
}

/**
 * A fetch that adds an Idempotency-Key to a POST without one and retries 429 and 503 answers as
 * their `Retry-After` says (the same request, the same key), within the bounds of the options.
 */
export function retryingFetch(options: Omit<LeadIntelOptions, 'apiKey' | 'baseUrl' | 'apiVersion'> = {}): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const maxRetries = options.maxRetries ?? 3;
  const maxDelay = options.maxRetryDelayMs ?? 60_000;
  const newKey = options.idempotencyKey ?? randomUUID;
  const sleep = options.sleep ?? sleeper;
  return async (input: Request) => {
    let request = input;
    if (request.method === 'POST' && !request.headers.has('Idempotency-Key')) {
      const headers = new Headers(request.headers);
      headers.set('Idempotency-Key', newKey());
      const body = request.body === null ? undefined : await request.arrayBuffer();
      request = new Request(request.url, { method: request.method, headers, body, signal: request.signal });
    }
    for (let attempt = 0; ; attempt += 1) {
      const response = await send(request.clone());
      if (!RETRY_STATUSES.has(response.status) || attempt >= maxRetries) return response;
      const delay = retryDelayMs(response.headers.get('Retry-After'), attempt);
      if (delay > maxDelay) return response;
      await response.body?.cancel();
      await sleep(delay);
    }
  };
}

/** The paths whose GET answers a list envelope (they take `starting_after`). */
export type ListPath = {
  [P in keyof paths]: paths[P] extends { get: { parameters: { query?: { starting_after?: string } } }; responses?: unknown }
    ? paths[P]['get'] extends { responses: { 200: { content: { 'application/json': { object: 'list' } } } } } ? P : never
    : never;
}[keyof paths];

type ListGet<P extends ListPath> = paths[P] extends { get: infer G } ? G : never;
/** The list envelope a list path answers. */
export type ListEnvelope<P extends ListPath> = ListGet<P> extends { responses: { 200: { content: { 'application/json': infer E } } } } ? E : never;
/** An item of that list. */
export type ListItem<P extends ListPath> = ListEnvelope<P> extends { data: (infer T)[] } ? T : never;
/** The query of a list path, without the cursor (the iterator sets it). */
export type ListQuery<P extends ListPath> = Omit<NonNullable<ListGet<P> extends { parameters: { query?: infer Q } } ? Q : never>, 'starting_after'>;
/** The path parameters of a list path, when it has any. */
type ListPathParams<P extends ListPath> = ListGet<P> extends { parameters: { path: infer A } } ? A : never;

type NoPathParams<P extends ListPath> = [ListPathParams<P>] extends [never | undefined] ? true : false;
export type PageOptions<P extends ListPath> = { query?: ListQuery<P>; startingAfter?: string } & (NoPathParams<P> extends true ? { path?: undefined } : { path: ListPathParams<P> });
/** The options argument: required when the path has parameters. */
export type PageArgs<P extends ListPath> = NoPathParams<P> extends true ? [options?: PageOptions<P>] : [options: PageOptions<P>];

/** The client: `api` for every typed call, plus pagination. */
export class LeadIntelClient {
  /** The openapi-fetch client: `api.GET('/leads/{id}', { params: { path: { id } } })`, typed by the document. */
  readonly api: ReturnType<typeof createClient<paths>>;

  constructor(options: LeadIntelOptions) {
    if (!options.apiKey) throw new Error('apiKey is required (svc_live_… or svc_test_…)');
    const headers: Record<string, string> = { Authorization: `Bearer ${options.apiKey}` };
    if (options.apiVersion) headers['Service-Version'] = options.apiVersion;
    this.api = createClient<paths>({ baseUrl: options.baseUrl ?? DEFAULT_BASE_URL, headers, fetch: retryingFetch(options) });
  }

  /** Every list envelope of a list, page after page, until `has_more` is false. Throws ApiError on a failed page. */
  async *pages<P extends ListPath>(path: P, ...args: PageArgs<P>): AsyncGenerator<ListEnvelope<P>, void, undefined> {
    const options = args[0] as PageOptions<P> | undefined;
    let cursor = options?.startingAfter;
    for (;;) {
      const query = { ...(options?.query ?? {}), ...(cursor ? { starting_after: cursor } : {}) };
      const get = this.api.GET as unknown as (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
      const { data, error, response } = await get(path, { params: { query, ...(options?.path ? { path: options.path } : {}) } });
      if (!data) throw new ApiError(response.status, error as ApiErrorBody | undefined, response.headers.get('Request-Id'));
      const page = data as { data: unknown[]; has_more: boolean; next_cursor: string | null };
      yield page as ListEnvelope<P>;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  /** Every item of a list, across its pages: `for await (const lead of client.paginate('/leads')) …`. */
  async *paginate<P extends ListPath>(path: P, ...args: PageArgs<P>): AsyncGenerator<ListItem<P>, void, undefined> {
    for await (const page of this.pages(path, ...args)) {
      for (const item of (page as { data: ListItem<P>[] }).data) yield item;
    }
  }
}
