import 'reflect-metadata';
import { RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA, PARAMTYPES_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { MetadataScanner } from '@nestjs/core';
import * as contracts from '@app/contracts';
import {
  API_VERSIONS, Company, CreatedWebhookEndpoint, CreditBalance, CURRENT_API_VERSION, DeletedEnvelope, EmailMessage, Enrollment,
  EnrollmentResult, ErrorBody, EventEnvelope, Export, ExportFilter, Lead, LedgerEntry, ListEnvelope, PAGE_LIMIT, Pipeline, Reveal,
  RolledWebhookEndpoint, SEARCH_MAX_PAGE, SearchHit, SearchResults, Sequence, SequenceStep, Source, Stage, StageRef, Suppression, Task,
  WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint,
} from '@app/contracts';
import { isPublicHandler } from '../http/public.decorator';
import { isContractDto } from '../http/validation';
import { dtoToJsonSchema, JsonSchema } from './dto-schema';
import { addCodeSamples } from './code-samples';
import { addRecordedExamples } from './examples';
import { COMMON_ERRORS, ERROR_RESPONSES, OperationDoc, operationOf } from './operation.decorator';
import { componentRef, ResourceSchemas, schemaName } from './resource-schema';
import { eventSchemas, eventWebhooks, SIGNATURE_HEADER } from './webhook-events';

export const API_BASE = '/api/v1';
export const OPENAPI_PATH = `${API_BASE}/openapi.json`;
export const DOCS_PATH = `${API_BASE}/docs`;
export const ERROR_DOCS_PATH = `${API_BASE}/docs/errors`;


/** One route of a controller, as Nest registers it. */
export interface DiscoveredRoute {
  method: string;
  /** Full path in Nest/Fastify form, e.g. `/api/v1/leads/:id`. */
  path: string;
  controller: Function;
  handlerName: string;
  handler: Function;
  httpCode?: number;
}

const joinPath = (...parts: string[]): string =>
  `/${parts.map((p) => p.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`;

/** Every route of the given controller classes, read from Nest's route metadata. */
export function discoverRoutes(controllers: Function[]): DiscoveredRoute[] {
  const scanner = new MetadataScanner();
  const routes: DiscoveredRoute[] = [];
  for (const controller of controllers) {
    const prefixes = [Reflect.getMetadata(PATH_METADATA, controller) ?? '/'].flat() as string[];
    for (const handlerName of scanner.getAllMethodNames(controller.prototype)) {
      const handler = controller.prototype[handlerName] as Function;
      const methodPath = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (methodPath === undefined || requestMethod === undefined) continue;
      const methods = requestMethod === RequestMethod.ALL ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] : [RequestMethod[requestMethod]];
      for (const prefix of prefixes) {
        for (const sub of [methodPath].flat()) {
          for (const method of methods) {
            routes.push({
              method, path: joinPath(prefix, sub), controller, handlerName, handler,
              httpCode: Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined,
            });
          }
        }
      }
    }
  }
  return routes;
}

/** `/api/v1/leads/:id` → `/leads/{id}` (OpenAPI form, relative to the server URL /api/v1). */
export function toOpenApiPath(path: string): string {
  const relative = path === API_BASE ? '/' : path.startsWith(`${API_BASE}/`) ? path.slice(API_BASE.length) : path;
  return relative.replace(/:([A-Za-z0-9_]+)(\?)?/g, '{$1}');
}

/**
 * The resources of the spec, in the document's order: the response classes of libs/contracts.
 * Every one is documented, also one whose routes are not served yet.
 */
const RESOURCES: Function[] = [
  ErrorBody, DeletedEnvelope, Source, SearchHit, SearchResults, Reveal, StageRef, Lead, Company, Stage, Pipeline, Task,
  SequenceStep, Sequence, Enrollment, EnrollmentResult, Suppression, LedgerEntry, CreditBalance, WebhookEndpoint,
  CreatedWebhookEndpoint, RolledWebhookEndpoint, WebhookDeliveryAttempt, WebhookDelivery, ExportFilter, Export, EmailMessage, EventEnvelope,
];
const resources = new ResourceSchemas(RESOURCES);

/** The list envelope of `item` (a component name). */
function listOf(item: string): JsonSchema {
  const envelope = resources.component(ListEnvelope);
  const properties = envelope.properties as Record<string, JsonSchema>;
  return { ...envelope, properties: { ...properties, data: { ...properties.data, items: componentRef(item) } } };
}

/** What a route falls back to when the spec names no resource for it. */
const GENERIC_OBJECT: JsonSchema = {
  type: 'object',
  description: 'A resource whose schema is not documented yet; it carries `object` naming its type.',
  properties: { object: { type: 'string', description: 'A constant naming the type.' } },
  additionalProperties: true,
};

/**
 * The contracts DTOs a handler takes as its whole body and query (`@Body() body: CreateLeadDto`,
 * `@Query() query: ListLeadsQueryDto`): what the input pipe validates them against.
 */
export function declaredInputs(controller: Function, handlerName: string): { body?: Function; query?: Function } {
  const types = (Reflect.getMetadata(PARAMTYPES_METADATA, controller.prototype, handlerName) ?? []) as unknown[];
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handlerName) ?? {}) as Record<string, { index: number; data?: unknown }>;
  const dto = (place: RouteParamtypes): Function | undefined => {
    for (const [key, { index, data }] of Object.entries(args)) {
      if (Number(key.split(':')[0]) !== place || data !== undefined) continue;
      const type = types[index];
      if (typeof type === 'function' && type !== Object && type !== String && isContractDto(type)) return type;
    }
    return undefined;
  };
  return { body: dto(RouteParamtypes.BODY), query: dto(RouteParamtypes.QUERY) };
}

/** Query parameters whose string form the DTO checks but whose meaning is a number. */
const QUERY_OVERRIDES: Record<string, JsonSchema> = {
  limit: { type: 'integer', minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max, default: PAGE_LIMIT.default, description: 'Page size.' },
  starting_after: { type: 'string', maxLength: 512, description: "The previous page's `next_cursor`." },
  page: { type: 'integer', minimum: 1, maximum: SEARCH_MAX_PAGE, default: 1 },
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  search: 'Search in one of four lenses; 25 results a page, contact details masked.',
  reveals: 'Reveal the email and phone of a search result; saved as a lead.',
  leads: 'Leads with provenance.',
  companies: 'Companies linked to leads.',
  pipelines: 'Pipelines with ordered stages.',
  tasks: 'Tasks of workspace members.',
  sequences: 'Multi-step email outreach: reading sequences and managing enrollments.',
  suppressions: 'Emails and domains that are never contacted.',
  credits: 'Plan and pack balances with a ledger.',
  webhook_endpoints: 'HTTPS endpoints receiving signed events.',
  events: 'The workspace\'s events of the last 30 days, each as delivered to webhook endpoints.',
  exports: 'Background CSV or JSON files of leads.',
  docs: 'This document, its reference page and the error catalogue.',
};

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const RESPONSE_HEADERS = { 'Request-Id': header('RequestId'), 'RateLimit-Limit': header('RateLimitLimit'), 'RateLimit-Remaining': header('RateLimitRemaining'), 'RateLimit-Reset': header('RateLimitReset') };

/** The code an error status answers with (the spec's one code per status). */
const codeOf = (status: number): string => Object.entries(contracts.ERROR_STATUS).find(([, s]) => s === status)?.[0] ?? 'internal_error';

/** A sentence linking the error catalogue's section of the code a status answers with. */
const catalogueLink = (status: number, docsUrl: string): string => {
  const code = codeOf(status);
  return ` What it means, what to do, whether to retry: [\`${code}\` in the error catalogue](${docsUrl}#${code}).`;
};

function errorResponse(status: number, description: string, docsUrl: string): Record<string, unknown> {
  const code = codeOf(status);
  return {
    description: `${description}${catalogueLink(status, docsUrl)}`,
    headers: { ...RESPONSE_HEADERS, ...(status === 429 || status === 503 ? { 'Retry-After': header('RetryAfter') } : {}) },
    content: {
      'application/json': {
        schema: componentRef('Error'),
        example: {
          error: {
            type: contracts.ERROR_TYPE[code as contracts.ErrorCode],
            code,
            message: description.replace(/^`[a-z_]+`: /, ''),
            ...(status === 400 ? { param: 'limit' } : {}),
            doc_url: `${docsUrl}#${code}`,
          },
        },
      },
    },
  };
}

const humanize = (segment: string) => segment.replace(/[_-]+/g, ' ').replace(/[{}]/g, '');

function fallbackDoc(method: string, path: string, hasPathParams: boolean, hasInput: boolean): OperationDoc {
  const verb: Record<string, string> = { GET: hasPathParams ? 'Retrieve' : 'List', POST: 'Create', PUT: 'Replace', PATCH: 'Update', DELETE: 'Delete' };
  const words = path.split('/').filter(Boolean).map(humanize).join(' ');
  const errors = new Set(COMMON_ERRORS);
  if (hasInput) errors.add(400);
  if (hasPathParams) errors.add(404);
  if (method === 'POST') errors.add(409);
  return {
    summary: `${verb[method] ?? method} ${words}`.trim(),
    response: method === 'DELETE' ? 'DeletedObject' : method === 'GET' && !hasPathParams ? 'list:GenericObject' : 'GenericObject',
    errors: [...errors].sort(),
    idempotent: method === 'POST',
  };
}

const DESCRIPTION = `The Lead Intelligence REST API: search, reveal, CRM data, sequences, suppressions, credits, exports and webhooks.

Generated from the gateway's code: every route its controllers serve, request schemas from the DTOs it validates with.

**Authentication.** Every request carries \`Authorization: Bearer <API_KEY>\`. Live keys begin \`svc_live_\`, test keys \`svc_test_\` (test keys never spend credits or send email; responses carry \`livemode\` false).

**Versions.** Send \`Service-Version\` (current \`${CURRENT_API_VERSION}\`); without it the version pinned on the key applies.

**Idempotency.** POST requests take \`Idempotency-Key\` (up to 255 characters). A retry with the same key within 24 hours returns the original response with \`Idempotent-Replayed: true\`; the same key with another body is 409 \`conflict\`.

**Pagination.** Cursor lists take \`limit\` (1 to 100, default 25) and \`starting_after\` (the previous page's \`next_cursor\`); stop when \`has_more\` is false.

**Errors.** Every failure returns one error object; every response carries \`Request-Id\` and the \`RateLimit-*\` headers. 120 requests per minute per key; a 429 carries \`Retry-After\` (seconds), and so does a 503 (the service or its database not answering for the moment: retry then, with the same \`Idempotency-Key\` on POST).`;

export interface OpenApiOptions {
  /** Base of `error.doc_url` links: the error catalogue the document links, and the examples. */
  docsUrl?: string;
}

/** The OpenAPI 3.1 document of the routes under /api/v1 of the given controllers. */
export function buildOpenApiDocument(controllers: Function[], options: OpenApiOptions = {}): Record<string, unknown> {
  const schemas: Record<string, JsonSchema> = {
    ...Object.fromEntries(RESOURCES.map((model) => [schemaName(model), resources.component(model)])),
    GenericObject: GENERIC_OBJECT,
  };
  const usedSchemas = new Set<string>();
  const register = (dto: Function): JsonSchema => {
    const name = dto.name;
    if (!schemas[name] || !usedSchemas.has(name)) {
      usedSchemas.add(name);
      schemas[name] = {};
      schemas[name] = dtoToJsonSchema(dto, { register });
    }
    return componentRef(name);
  };

  const docsUrl = options.docsUrl ?? 'https://docs.example.com/errors';
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  const operationIds = new Set<string>();
  const routes = discoverRoutes(controllers).filter((r) => r.path === API_BASE || r.path.startsWith(`${API_BASE}/`));
  for (const route of routes) {
    const path = toOpenApiPath(route.path);
    const key = `${route.method} ${path}`;
    const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const inputs = declaredInputs(route.controller, route.handlerName);
    const hasBody = ['POST', 'PUT', 'PATCH'].includes(route.method);
    const doc = operationOf(route.handler) ?? fallbackDoc(route.method, path, pathParams.length > 0, Boolean(inputs.query) || hasBody);
    // served without an API key (`@Public()`): no security, no Service-Version
    const keyless = isPublicHandler(route.handler);
    const tag = path.split('/').filter(Boolean)[0]?.replace(/\.json$/, '') ?? 'api';
    const tagName = key === 'GET /openapi.json' || key === 'GET /postman_collection.json' ? 'docs' : tag === 'unsubscribe' || tag === 'optout' ? 'suppressions' : tag;
    tags.add(tagName);

    const parameters: unknown[] = pathParams.map((name) => ({
      name, in: 'path', required: true,
      description: name === 'id' ? `ID of the ${humanize(tag).replace(/s$/, '')}.` : `ID (${humanize(name)}).`,
      schema: { type: 'string', maxLength: keyless ? 512 : 255 },
    }));
    if (inputs.query) {
      const query = dtoToJsonSchema(inputs.query, { register, query: true });
      const required = new Set((query.required as string[] | undefined) ?? []);
      for (const [name, schema] of Object.entries(query.properties as Record<string, JsonSchema>)) {
        const override = QUERY_OVERRIDES[name];
        const isObject = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object'));
        parameters.push({
          name, in: 'query', required: required.has(name),
          ...(isObject ? { style: 'deepObject', explode: true } : {}),
          schema: override ? { ...override } : schema,
        });
      }
    }
    if (!inputs.query && doc.query) {
      for (const [name, { required, description, schema }] of Object.entries(doc.query)) {
        parameters.push({
          name, in: 'query', required: Boolean(required), ...(description ? { description } : {}),
          ...(schema.type === 'object' ? { style: 'deepObject', explode: true } : {}), schema,
        });
      }
    }
    for (const [name, { description, schema }] of Object.entries(doc.headers ?? {})) parameters.push({ name, in: 'header', required: false, description, schema });
    if (!keyless) parameters.push({ $ref: '#/components/parameters/ServiceVersion' });
    if (route.method === 'POST' && !keyless && doc.idempotent !== false) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });

    let requestBody: Record<string, unknown> | undefined;
    if (hasBody) {
      const schema = inputs.body ? register(inputs.body) : doc.body ?? { type: 'object', additionalProperties: true, description: 'A JSON object; its fields are not documented yet.' };
      const resolved = inputs.body ? schemas[inputs.body.name] : doc.body;
      const bodyRequired = ((resolved?.required as string[] | undefined)?.length ?? 0) > 0;
      const checked = doc.bodyRule ? { allOf: [schema, doc.bodyRule] } : schema;
      requestBody = { required: bodyRequired, content: !inputs.body && doc.requestMedia ? doc.requestMedia : { 'application/json': { schema: checked } } };
    }

    const status = doc.status ?? route.httpCode ?? (route.method === 'POST' ? 201 : 200);
    const successHeaders = {
      ...RESPONSE_HEADERS,
      ...(route.method === 'POST' && !keyless ? { 'Idempotent-Replayed': header('IdempotentReplayed') } : {}),
    };
    const bodySchema = doc.response.startsWith('list:')
      ? listOf(doc.response.slice(5))
      : doc.response === 'file' ? undefined : componentRef(doc.response);
    if (doc.response.startsWith('list:')) usedSchemas.add(doc.response.slice(5));
    else usedSchemas.add(doc.response);
    const content = doc.media ?? (bodySchema ? { 'application/json': { schema: bodySchema } } : undefined);
    const responses: Record<string, unknown> = {
      [String(status)]: { description: doc.summary, headers: successHeaders, ...(content ? { content } : {}) },
    };
    for (const [extra, description] of Object.entries(doc.alsoStatus ?? {})) {
      responses[extra] = { description, headers: successHeaders, ...(content ? { content } : {}) };
    }
    const errors = keyless ? doc.errors : [...new Set([...doc.errors, ...COMMON_ERRORS])].sort();
    for (const code of errors) {
      const known = ERROR_RESPONSES[code];
      // 429, 500 and a 503 the handler does not declare come from the pipeline or a service (the error object); the others only from the handler
      const errorObject = code === 429 || code === 500 || (code === 503 && !doc.errors.includes(503));
      if (doc.htmlErrors && !errorObject) {
        const html = { 'text/html': { schema: { type: 'string' } } };
        responses[String(code)] = doc.htmlErrors === 'negotiated'
          ? { description: `${known?.description ?? `Error ${code}`} (an HTML page to a form post, the error object to a JSON client).${catalogueLink(code, docsUrl)}`, content: { ...html, 'application/json': { schema: componentRef('Error') } } }
          : { description: `${known?.description ?? `Error ${code}`} (an HTML page).${catalogueLink(code, docsUrl)}`, content: html };
      } else {
        responses[String(code)] = known ? { $ref: `#/components/responses/${known.name}` } : { description: `Error ${code}.${catalogueLink(code, docsUrl)}` };
      }
    }

    let operationId = `${route.controller.name.replace(/Controller$/, '').replace(/^./, (c) => c.toLowerCase())}_${route.handlerName}`;
    while (operationIds.has(operationId)) operationId += '_';
    operationIds.add(operationId);
    (paths[path] ??= {})[route.method.toLowerCase()] = {
      operationId,
      summary: doc.summary,
      ...(doc.description ? { description: doc.description } : {}),
      tags: [tagName],
      ...(keyless ? { security: [] } : {}),
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }

  addRecordedExamples(paths);
  addCodeSamples(paths);

  const responses = Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, { name, description }]) => [name, errorResponse(Number(status), description, docsUrl)]),
  );
  // Every resource of the spec is documented, also one whose routes are not served yet; a
  // GenericObject no route falls back to is left out.
  const usedComponents = Object.fromEntries(
    Object.entries({ ...schemas, ...eventSchemas() }).filter(([name]) => name !== 'GenericObject' || usedSchemas.has(name)),
  );

  return {
    openapi: '3.1.0',
    info: {
      title: 'Lead Intelligence API',
      version: CURRENT_API_VERSION,
      description: DESCRIPTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    externalDocs: { description: 'Error codes: what each means, what to do, whether to retry (`error.doc_url` links here).', url: docsUrl },
    servers: [
      {
        url: `{scheme}://{host}${API_BASE}`,
        description: 'A gateway by its address: the mesh `npm start` runs on this machine by default; set `host` to your deployment\'s.',
        variables: {
          scheme: { enum: ['http', 'https'], default: 'http', description: '`https` in production (a TLS gateway or a proxy in front of it).' },
          host: { default: '127.0.0.1:3000', description: 'Host name and port of the gateway.' },
        },
      },
      { url: API_BASE, description: 'The gateway serving this document (relative to it)' },
    ],
    security: [{ ApiKey: [] }],
    tags: [...tags].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `${humanize(name)}.` })),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    webhooks: {
      event: {
        post: {
          operationId: 'webhook_event',
          summary: 'An event delivered to a webhook endpoint',
          description:
            'Sent to each enabled endpoint subscribed to the event type (or to `*`). Any 2xx within 10 seconds is success; ' +
            'failures are retried about 1 min, 5 min, 30 min, 2 h, 6 h and 15 h later. Events may arrive twice (dedupe on `id`) ' +
            'and out of order. Verify `Service-Signature`: `t=<unix_seconds>,v1=<hex HMAC-SHA256 of "t.body" keyed with the whole whsec_ secret>`, ' +
            'rejecting a `t` more than 300 seconds from your clock.',
          tags: ['webhook_endpoints'],
          security: [],
          parameters: [SIGNATURE_HEADER],
          requestBody: { required: true, content: { 'application/json': { schema: componentRef('Event') } } },
          responses: { '200': { description: 'Any 2xx status acknowledges the delivery.' } },
        },
      },
      // one entry per event type: its schema and an example
      ...eventWebhooks(),
    },
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key: `svc_live_…` or `svc_test_…`, sent as `Authorization: Bearer <API_KEY>`. Missing, malformed or revoked is 401.',
        },
      },
      parameters: {
        ServiceVersion: {
          name: 'Service-Version', in: 'header', required: false,
          description: 'API version (a date). Defaults to the version pinned on the key.',
          schema: { type: 'string', enum: [...API_VERSIONS], examples: [CURRENT_API_VERSION] },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key', in: 'header', required: false,
          description: 'Makes a POST safe to retry for 24 hours: a retry returns the original response with `Idempotent-Replayed: true`; the same key with another body is 409.',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
      },
      headers: {
        RequestId: { description: 'Identifier of this request; quote it when asking for help.', schema: { type: 'string' } },
        RateLimitLimit: { description: 'Requests allowed per one-minute window for this key (120).', schema: { type: 'integer' } },
        RateLimitRemaining: { description: 'Requests left in the current window.', schema: { type: 'integer' } },
        RateLimitReset: { description: 'Seconds until the current window ends.', schema: { type: 'integer' } },
        RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
        IdempotentReplayed: { description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
      },
      responses,
      schemas: usedComponents,
    },
  };
}
