/**
 * A typed client of the Lead Intelligence API. The types (`./api`) are generated from the
 * committed OpenAPI document, docs/openapi.json, so a path, parameter or field the API does not
 * have is a compile error; the calls go through openapi-fetch. On top of it:
 *
 * - `Idempotency-Key` on every POST, generated unless the call gives one, the same on every attempt;
 * - retries as Stripe's SDKs make them (./retry): no answer (refused, reset, timed out), 429, 500,
 *   502, 503, 504 and the gateway's 409 "still being processed", with exponential backoff and
 *   jitter, honouring `Retry-After`, at most `maxRetries` (default 4) times;
 * - errors typed by status (./errors);
 * - cursor pagination: `paginate()` iterates over every item of a list, page after page
 *   (`starting_after` = the previous page's `next_cursor` until `has_more` is false), `pages()`
 *   over the list envelopes;
 * - `eventStream()`: the workspace's events as `GET /events/stream` sends them (Server-Sent Events);
 * - `verifySignature()` for webhook deliveries, `signatureHeader()` to sign one (./signature).
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './api';
import { ApiError, ApiErrorObject } from './errors';
import { parseEventStream, StreamedEvent } from './event-stream';
import { RetryOptions, retryingFetch } from './retry';

export { newSigningSecret, SIGNATURE_TOLERANCE_SECONDS, signatureHeader, SignatureVerdict, verifySignature, VerifyOptions } from './signature';
export { parseEventStream, StreamedEvent } from './event-stream';
export {
  ApiConnectionError, ApiError, ApiServerError, AuthenticationError, ConflictError, InsufficientCreditsError, InvalidRequestError,
  NotFoundError, PermissionError, RateLimitError,
} from './errors';
export {
  DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_AFTER_MS, DEFAULT_TIMEOUT_MS, INITIAL_BACKOFF_MS, isInProgressConflict, MAX_BACKOFF_MS,
  RETRY_STATUSES, retryAfterMs, retryDelayMs, retryingFetch, RetryOptions,
} from './retry';
export type { components, paths, webhooks } from './api';

export type Schemas = components['schemas'];
export type ApiErrorBody = ApiErrorObject;
export type WebhookEvent = Schemas['Event'];

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000/api/v1';

export interface LeadIntelOptions extends RetryOptions {
  /** `svc_live_…` or `svc_test_…`. */
  apiKey: string;
  /** The API root, `/api/v1` included; default the local mesh's. */
  baseUrl?: string;
  /** `Service-Version` on every request; default the version pinned on the key. */
  apiVersion?: string;
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

export interface StreamEventsOptions {
  /** Event types to receive (default every type). */
  types?: readonly string[];
  /** Resume after this event: the `id` of the last event received. */
  lastEventId?: string;
  /** Ends the stream (the iteration then throws the abort error). */
  signal?: AbortSignal;
}

/** The client: `api` for every typed call, plus pagination and the event stream. */
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
      if (!data) throw ApiError.from(response.status, error as ApiErrorBody | undefined, response.headers.get('Request-Id'));
      const page = data as { data: unknown[]; has_more: boolean; next_cursor: string | null };
      yield page as ListEnvelope<P>;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  /**
   * Opens `GET /events/stream`: the workspace's events in the key's mode, each event's id and its
   * envelope's JSON text, from the events stored since connecting (or after `lastEventId`), until
   * the server ends the stream (it restarted, or the key was revoked) or `signal` aborts it.
   * Resolves once the stream is open; a refusal (400, 401, 429 ...) rejects with ApiError. Resume
   * by opening again with the last id received: nothing is missed or repeated.
   *
   *   for await (const event of await client.eventStream({ types: ['lead.created'] })) console.log(event.id);
   */
  async eventStream(options: StreamEventsOptions = {}): Promise<AsyncGenerator<StreamedEvent, void, undefined>> {
    const { data, error, response } = await this.api.GET('/events/stream', {
      params: {
        query: options.types?.length ? { types: options.types.join(',') } : undefined,
        header: options.lastEventId ? { 'Last-Event-ID': options.lastEventId } : undefined,
      },
      headers: { Accept: 'text/event-stream' },
      parseAs: 'stream',
      signal: options.signal,
    });
    if (!response.ok || !data) throw ApiError.from(response.status, error as ApiErrorBody | undefined, response.headers.get('Request-Id'));
    return parseEventStream(data as unknown as AsyncIterable<Uint8Array>);
  }

  /** Every item of a list, across its pages: `for await (const lead of client.paginate('/leads')) …`. */
  async *paginate<P extends ListPath>(path: P, ...args: PageArgs<P>): AsyncGenerator<ListItem<P>, void, undefined> {
    for await (const page of this.pages(path, ...args)) {
      for (const item of (page as { data: ListItem<P>[] }).data) yield item;
    }
  }
}
