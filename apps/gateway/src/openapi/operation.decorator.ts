import { SetMetadata } from '@nestjs/common';
import type { JsonSchema } from './dto-schema';

/**
 * What the spec says about one endpoint that the code cannot tell, declared on its handler with
 * `@Operation({...})`: summary, the resource it returns, its success status and its error
 * statuses. The OpenAPI generator reads it beside the route, the `@Public()` mark and the DTOs of
 * the handler's typed `@Body()`/`@Query()`. A handler without it is still documented, with a
 * summary made from its path, `GenericObject` as its response and the common error statuses.
 */
export interface OperationDoc {
  summary: string;
  description?: string;
  /** A component (a response class of libs/contracts, by its schema name), `list:<Component>` for a list envelope of it, `file` for a download or page. */
  response: string;
  /** Success status; defaults to the route's (`@HttpCode`, else 201 for POST, 200 otherwise). */
  status?: number;
  /** Further success statuses, with the same body. */
  alsoStatus?: Record<number, string>;
  /** Every status of the spec's "Errors" line for the endpoint. */
  errors: number[];
  /** Request media types other than JSON (a form post). */
  requestMedia?: Record<string, { schema: JsonSchema }>;
  /** Whether the spec lists `Idempotency-Key` for it (every keyed POST does). */
  idempotent?: boolean;
  /**
   * The spec's inputs, for a handler that checks its input by hand rather than with a contracts
   * DTO (a typed `@Query()`/`@Body()` DTO wins): query parameters and a JSON body schema.
   */
  query?: Record<string, { required?: boolean; description?: string; schema: JsonSchema }>;
  body?: JsonSchema;
  /** A rule over the whole body that the DTO checks in code (e.g. exactly one of two fields). */
  bodyRule?: JsonSchema;
  /**
   * Errors answered as an HTML page rather than the error object (pages meant for people);
   * `negotiated`: an HTML page to a form post, the error object to a JSON client.
   */
  htmlErrors?: boolean | 'negotiated';
  /** Request headers the endpoint reads beside the common ones. */
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  /** Response media type other than JSON (downloads, pages, streams). */
  media?: Record<string, { schema: Record<string, unknown> }>;
}

export const OPERATION_METADATA = 'gateway:operation';

/** Declares a handler's documentation (read by the OpenAPI generator). */
export const Operation = (doc: OperationDoc): MethodDecorator => SetMetadata(OPERATION_METADATA, doc);

/** The `@Operation()` of a handler, if it has one. */
export function operationOf(handler: Function): OperationDoc | undefined {
  return Reflect.getMetadata(OPERATION_METADATA, handler) as OperationDoc | undefined;
}

/** Status → component of `components.responses`. */
export const ERROR_RESPONSES: Record<number, { name: string; description: string }> = {
  400: { name: 'InvalidRequest', description: '`invalid_request`: a parameter is missing, has the wrong type or fails validation; `param` names it.' },
  401: { name: 'AuthenticationFailed', description: '`authentication_failed`: Authorization header missing, malformed, or the key revoked.' },
  402: { name: 'InsufficientCredits', description: '`insufficient_credits`: not enough credits for a search page or a reveal; nothing is charged.' },
  403: { name: 'PermissionDenied', description: '`permission_denied`: the plan lacks the API, or the lens is not on the plan.' },
  404: { name: 'NotFound', description: '`not_found`: no object with that ID in this workspace (including deleted objects).' },
  409: { name: 'Conflict', description: '`conflict`: a duplicate, an Idempotency-Key reused with a different body, or a concurrent change.' },
  429: { name: 'RateLimited', description: '`rate_limited`: more than 120 requests in a minute with this key; see `Retry-After`.' },
  500: { name: 'InternalError', description: '`internal_error`: failure on the service side; safe to retry with the same Idempotency-Key.' },
  503: {
    name: 'ServiceUnavailable',
    description: '`service_unavailable`: the service or its database is not answering for the moment (a database failover), or a service the request needs is not configured on this installation (the opt-out portal without a mail server); see `Retry-After`, and retry with the same Idempotency-Key',
  },
};

/**
 * Statuses every endpoint can return (spec: "Every endpoint can return 401, 403, 429, 500"), and
 * 503 with `Retry-After` while the service or its database is not answering (docs/decisions.md,
 * "A database failover is answered 503 with Retry-After").
 */
export const COMMON_ERRORS = [401, 403, 429, 500, 503];

/** Media of the pages meant for people. */
export const HTML_PAGE = { 'text/html': { schema: { type: 'string' } } };
