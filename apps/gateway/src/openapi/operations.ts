/**
 * What the spec says about each endpoint that the code cannot tell: summary, the resource it
 * returns, its success status and its specific error statuses. Keyed by `METHOD /path` in
 * OpenAPI form relative to /api/v1. Routes are discovered from the gateway's controllers; a
 * route missing here is still documented, with a summary made from its path, `GenericObject`
 * as its response and the common error statuses.
 */
import { LENSES, SEARCH_FILTER_KEYS, SEARCH_MAX_PAGE, SEARCH_Q_MAX } from '@app/contracts';
import type { JsonSchema } from './dto-schema';

const SEARCH_FILTERS = [...new Set(Object.values(SEARCH_FILTER_KEYS).flat())];

export interface OperationDoc {
  summary: string;
  description?: string;
  /** A component (a response class of libs/contracts, by its schema name), `list:<Component>` for a list envelope of it. */
  response: string;
  /** Success status; defaults to the route's (Nest: 201 for POST, 200 otherwise). */
  status?: number;
  /** Further success statuses, with the same body. */
  alsoStatus?: Record<number, string>;
  /** Every status of the spec's "Errors" line for the endpoint. */
  errors: number[];
  /** Request media types other than JSON (a form post). */
  requestMedia?: Record<string, { schema: JsonSchema }>;
  /** Whether the spec lists `Idempotency-Key` for it (every POST does). */
  idempotent?: boolean;
  /**
   * The spec's inputs, for a handler that checks its input by hand rather than with a contracts
   * DTO (a DTO found in the handler wins): query parameters and a JSON body schema.
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
  /** Response media type other than JSON (downloads). */
  media?: Record<string, { schema: Record<string, unknown> }>;
}

export const OPERATIONS: Record<string, OperationDoc> = {
  'GET /search': {
    summary: 'Search a lens',
    description: 'Costs 1 credit per page on a live key (0 on a test key). 25 results a page, contact details masked.',
    response: 'SearchResults',
    errors: [400, 401, 402, 403, 429, 500],
    query: {
      lens: { required: true, description: 'The lens to search.', schema: { type: 'string', enum: [...LENSES] } },
      q: { description: 'Free text: names, topics, domains, programs.', schema: { type: 'string', maxLength: SEARCH_Q_MAX } },
      filters: {
        description:
          'Filters as `filters[key]=value`; repeat the key for several values. Leads: ' + SEARCH_FILTER_KEYS.leads.join(', ') +
          '. Investors: ' + SEARCH_FILTER_KEYS.investors.join(', ') + '. Researchers: ' + SEARCH_FILTER_KEYS.researchers.join(', ') +
          '. Grants: ' + SEARCH_FILTER_KEYS.grants.join(', ') + '.',
        schema: {
          type: 'object',
          propertyNames: { enum: SEARCH_FILTERS },
          additionalProperties: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 20 }] },
        },
      },
      page: { description: '1 to 40.', schema: { type: 'integer', minimum: 1, maximum: SEARCH_MAX_PAGE, default: 1 } },
    },
  },
  'POST /reveals': {
    summary: 'Reveal a search result',
    description:
      'Reveals email and phone for a search result, verifies the email and saves the result as a lead. Costs 1 credit; ' +
      'revealing an already-revealed entity is free (200, `already_revealed` true). If nothing verifiable is found the credit ' +
      'is refunded and `status` is `no_contact_found`.',
    response: 'Reveal',
    status: 201,
    alsoStatus: { 200: 'The entity was already revealed: free, `already_revealed` true.' },
    errors: [400, 401, 402, 403, 404, 409, 429, 500],
    idempotent: true,
    body: {
      type: 'object',
      properties: { entity_id: { type: 'string', maxLength: 255, description: 'From a search hit (prefix `ent_`).' } },
      required: ['entity_id'],
      additionalProperties: false,
    },
  },
  'GET /leads': {
    summary: 'List leads',
    description: 'Newest first. Entries carry no `sources`.',
    response: 'list:Lead',
    errors: [400, 401, 403, 429, 500],
  },
  'POST /leads': {
    summary: 'Create a lead',
    description:
      'Adds a lead the caller found; no credits charged. The email is checked against the workspace suppression list and the ' +
      'global opt-out list; suppressed addresses are saved but cannot be enrolled.',
    response: 'Lead',
    status: 201,
    errors: [400, 401, 403, 409, 429, 500],
    idempotent: true,
  },
  'GET /leads/{id}': { summary: 'Retrieve a lead', description: 'With `sources`.', response: 'Lead', errors: [401, 403, 404, 429, 500] },
  'PATCH /leads/{id}': {
    summary: 'Update a lead',
    description: 'Changes only the fields sent; emits `lead.updated`.',
    response: 'Lead',
    errors: [400, 401, 403, 404, 409, 429, 500],
  },
  'DELETE /leads/{id}': {
    summary: 'Delete a lead',
    description: 'Permanently deletes the lead, its notes, tasks and enrollments; active sequences stop for it.',
    response: 'DeletedObject',
    errors: [401, 403, 404, 429, 500],
  },
  'PUT /leads/{id}/stage': {
    summary: "Move a lead to a pipeline stage",
    description: 'Moves the lead to a stage ID taken from GET /pipelines; emits `lead.stage_changed`.',
    response: 'Lead',
    errors: [400, 401, 403, 404, 409, 429, 500],
  },
  'GET /companies': { summary: 'List companies', response: 'list:Company', errors: [400, 401, 403, 429, 500] },
  'GET /companies/{id}': { summary: 'Retrieve a company', response: 'Company', errors: [401, 403, 404, 429, 500] },
  'GET /pipelines': {
    summary: 'List pipelines',
    description: 'Every pipeline with its stages in order; stage IDs feed PUT /leads/{id}/stage.',
    response: 'list:Pipeline',
    errors: [400, 401, 403, 429, 500],
  },
  'GET /tasks': { summary: 'List tasks', response: 'list:Task', errors: [400, 401, 403, 429, 500] },
  'POST /tasks': {
    summary: 'Create a task',
    description: "Tasks with a due date show on the assignee's home screen.",
    response: 'Task',
    status: 201,
    errors: [400, 401, 403, 404, 409, 429, 500],
    idempotent: true,
  },
  'PATCH /tasks/{id}': {
    summary: 'Update a task',
    description: '`status` `done` completes the task and sets `completed_at`.',
    response: 'Task',
    errors: [400, 401, 403, 404, 409, 429, 500],
  },
  'GET /sequences': { summary: 'List sequences', response: 'list:Sequence', errors: [400, 401, 403, 429, 500] },
  'GET /sequences/{id}': { summary: 'Retrieve a sequence', response: 'Sequence', errors: [401, 403, 404, 429, 500] },
  'POST /sequences/{id}/enrollments': {
    summary: 'Enroll leads in a sequence',
    description:
      'Each lead is checked as in the application; leads that fail are listed in `skipped` with a reason. On a test key nothing ' +
      'is enrolled and the response shows what would happen. 201 even when some leads are skipped.',
    response: 'EnrollmentResult',
    status: 201,
    errors: [400, 401, 403, 404, 409, 429, 500],
    idempotent: true,
  },
  'DELETE /sequences/{id}/enrollments/{lead_id}': {
    summary: 'Stop a sequence for one lead',
    description: 'The enrollment becomes `stopped` with stop_reason `removed`; the lead stays in the CRM.',
    response: 'Enrollment',
    errors: [401, 403, 404, 429, 500],
  },
  'GET /suppressions': {
    summary: 'List suppressions',
    description: 'Workspace and global entries.',
    response: 'list:Suppression',
    errors: [400, 401, 403, 429, 500],
  },
  'POST /suppressions': {
    summary: 'Create a suppression',
    description:
      'Send exactly one of `email` and `domain`. Takes effect immediately: queued emails are cancelled and active enrollments ' +
      'stop. Emits `unsubscribe.created` when `reason` is `unsubscribe`.',
    response: 'Suppression',
    status: 201,
    errors: [400, 401, 403, 409, 429, 500],
    idempotent: true,
    bodyRule: { oneOf: [{ required: ['email'] }, { required: ['domain'] }], description: 'Exactly one of `email` and `domain`.' },
  },
  'GET /credits': {
    summary: 'Retrieve the credit balance',
    description: 'With the 20 most recent ledger entries. Plan credits are used before pack credits.',
    response: 'CreditBalance',
    errors: [401, 403, 429, 500],
  },
  'GET /webhook_endpoints': {
    summary: 'List webhook endpoints',
    description: 'Secrets are never returned.',
    response: 'list:WebhookEndpoint',
    errors: [401, 403, 429, 500],
  },
  'POST /webhook_endpoints': {
    summary: 'Create a webhook endpoint',
    description: 'The response carries `secret`, which cannot be retrieved again.',
    response: 'WebhookEndpointWithSecret',
    status: 201,
    errors: [400, 401, 403, 409, 429, 500],
    idempotent: true,
  },
  'DELETE /webhook_endpoints/{id}': {
    summary: 'Delete a webhook endpoint',
    description: 'Stops deliveries immediately; deliveries in retry are dropped.',
    response: 'DeletedObject',
    errors: [401, 403, 404, 429, 500],
  },
  'POST /exports': {
    summary: 'Start an export',
    description: 'Queues a background CSV or JSON export of leads (only revealed contact fields). Recorded in the audit log.',
    response: 'Export',
    status: 202,
    errors: [400, 401, 403, 409, 429, 500],
    idempotent: true,
  },
  'GET /exports/{id}': {
    summary: 'Retrieve an export',
    description: '`download_url` is set once status is `completed` and works for 24 hours.',
    response: 'Export',
    errors: [401, 403, 404, 429, 500],
  },
  'GET /openapi.json': {
    summary: 'This OpenAPI document',
    description: 'Generated from the gateway\'s code. No API key needed.',
    response: 'file',
    errors: [429, 500],
    media: { 'application/json': { schema: { type: 'object', description: 'An OpenAPI 3.1 document.', additionalProperties: true } } },
  },
  'GET /docs': {
    summary: 'Interactive API reference',
    description: 'A self-contained page rendering this document, with a "Try it" form. No API key needed.',
    response: 'file',
    errors: [429, 500],
    media: { 'text/html': { schema: { type: 'string' } } },
  },
  'GET /docs/errors': {
    summary: 'Error catalogue',
    description: 'One section per error code, anchored by the code (`#not_found`): what it means, what to do, whether to retry. `error.doc_url` links here. No API key needed.',
    response: 'file',
    errors: [429, 500],
    media: { 'text/html': { schema: { type: 'string' } } },
  },
  'GET /unsubscribe/{token}': {
    summary: 'Unsubscribe page (email footer link)',
    description: 'The signed token of an email is the credential: no API key. Shows a page with one button; a GET changes nothing.',
    response: 'file',
    errors: [429, 500],
    media: { 'text/html': { schema: { type: 'string' } } },
  },
  'POST /unsubscribe/{token}': {
    summary: 'Unsubscribe (RFC 8058 one-click and the page button)',
    description: 'Creates a workspace suppression with reason `unsubscribe` for the recipient of the email. No API key: the signed token is the credential.',
    response: 'file',
    status: 200,
    errors: [404, 429, 500],
    htmlErrors: true,
    idempotent: false,
    requestMedia: {
      'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { 'List-Unsubscribe': { type: 'string', const: 'One-Click' } } } },
    },
    media: { 'text/html': { schema: { type: 'string' } } },
  },
  'GET /optout': {
    summary: 'Opt-out portal: request form',
    description: 'A page for recipients: enter an address, receive a confirmation link. No API key.',
    response: 'file',
    errors: [429, 500],
    media: { 'text/html': { schema: { type: 'string' } } },
  },
  'POST /optout': {
    summary: 'Opt-out portal: send the confirmation link',
    description:
      'Mails a confirmation link to the address (whether or not it can receive mail, the answer is the same). A refused address is 400: ' +
      'the form again, with the reason, to the HTML form; the error object to a JSON client. No API key.',
    response: 'file',
    status: 200,
    errors: [400, 429, 500],
    htmlErrors: 'negotiated',
    idempotent: false,
    requestMedia: {
      'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] } },
      'application/json': { schema: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] } },
    },
    media: { 'text/html': { schema: { type: 'string' } } },
  },
  'GET /optout/confirm/{token}': {
    summary: 'Opt-out portal: confirmation page (the mailed link)',
    description: 'A page with one button; a GET changes nothing. No API key: the signed token is the credential.',
    response: 'file',
    errors: [429, 500],
    media: { 'text/html': { schema: { type: 'string' } } },
  },
  'POST /optout/confirm/{token}': {
    summary: 'Opt-out portal: confirm',
    description: 'Adds a global suppression of the address: no workspace can email it. An expired or altered link is a 404 page. No API key.',
    response: 'file',
    status: 200,
    errors: [404, 429, 500],
    htmlErrors: true,
    idempotent: false,
    requestMedia: { 'application/x-www-form-urlencoded': { schema: { type: 'object' } } },
    media: { 'text/html': { schema: { type: 'string' } } },
  },
  'GET /exports/{id}/download': {
    summary: 'Download an export file (signed link)',
    description:
      'The `download_url` of a completed export. The signature is the credential: no API key is needed; rate limited per client ' +
      'address. An expired, altered or unknown link is 404.',
    response: 'file',
    errors: [404, 429, 500],
    media: {
      'text/csv': { schema: { type: 'string' } },
      'application/json': { schema: { type: 'array', items: { type: 'object', additionalProperties: true } } },
    },
  },
};

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
};

/** Statuses every endpoint can return (spec: "Every endpoint can return 401, 403, 429, 500"). */
export const COMMON_ERRORS = [401, 403, 429, 500];
