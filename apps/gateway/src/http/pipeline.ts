import { Inject, Injectable } from '@nestjs/common';
import { Span } from '@opentelemetry/api';
import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_PLANS, IDEMPOTENCY_CONFLICT_MESSAGES, RequestContext, VERSION_HEADER } from '@app/contracts';
import { extractTraceContext, RawJson, SERVICE_CONFIG, SpanKind, startSpan } from '@app/platform';
import { hashApiKey, parseBearer } from '../auth/api-key';
import { ApiKeysRepository } from '../auth/api-keys.repository';
import { GatewayConfig } from '../config';
import { RouteCatalog } from '../openapi/route-catalog';
import { grantsOf, IdempotencyScope, IdempotencyStore, requestFingerprint, scopedServiceKey } from '../idempotency/idempotency.store';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { hasChangesAfter, isKnownVersion, renderForVersion } from '../versioning/versions';
import { ApiError } from './api-error';
import { checkBody, checkPathParameters, checkQuery } from './input-guard';
import { publicRouteOf } from './public.decorator';
import { requestSpans } from './request-span';
import { observeResponse } from './request-log';

declare module 'fastify' {
  interface FastifyRequest {
    ctx?: RequestContext;
    idempotency?: { scope: IdempotencyScope; key: string; token: string };
    span?: Span;
    /** A well-formed `X-Request-Id` the client sent: logged beside the API's own `Request-Id`. */
    clientRequestId?: string;
  }
}

/** What a client's own request id may be to be logged: printable ASCII, at most 200 characters. */
const CLIENT_REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

export const API_PREFIX = '/api/v1';
const IDEMPOTENCY_HEADER = 'idempotency-key';

/**
 * Whether a request is the API's, so authenticated and counted: judged on the route the router
 * matched, whatever spelling reached it (`/%61pi/v1/optout` is `/api/v1/optout`), and when none
 * matched, on the path decoded as the router decodes it, so that every spelling of an API URL is
 * counted once, known route or not. The gateway's health and metrics routes are not the API.
 */
export function isApiRequest(route: string | undefined, url: string): boolean {
  const path = route ?? decodedPath(url);
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
}

function decodedPath(url: string): string {
  const path = url.split(/[?#]/, 1)[0];
  try {
    return decodeURIComponent(path);
  } catch {
    return path; // a path that does not decode is routed as it is (routableUrl)
  }
}

/**
 * The gateway's request pipeline, in the order of the architecture: Request-Id, authenticate,
 * rate limit (every request counts), plan permission, version, input that no route accepts,
 * then (POST) idempotency. It runs as Fastify hooks so that unknown routes, malformed URLs and
 * unparsable bodies pass through it too.
 */
@Injectable()
export class GatewayPipeline {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: GatewayConfig,
    private readonly keys: ApiKeysRepository,
    private readonly limiter: RateLimiter,
    private readonly idempotency: IdempotencyStore,
    private readonly catalog: RouteCatalog,
  ) {}

  install(fastify: FastifyInstance): void {
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: this.config.bodyLimitBytes }, (_req, body, done) => {
      if (body === '') return done(null, undefined);
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(ApiError.invalid(undefined, 'The request body is not valid JSON'), undefined);
      }
    });
    // the opt-out portal's HTML form posts application/x-www-form-urlencoded (`@Public({ forms: true })`)
    fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (req, body, done) =>
      publicRouteOf(req).forms
        ? done(null, Object.fromEntries(new URLSearchParams(body as string)))
        : done(ApiError.invalid(undefined, 'Request bodies must be JSON, sent with Content-Type: application/json'), undefined),
    );
    fastify.addContentTypeParser('*', (req, _payload, done) =>
      // an RFC 8058 one-click unsubscribe posts a form (List-Unsubscribe=One-Click); the token says it all
      publicRouteOf(req).forms
        ? done(null, undefined)
        : done(ApiError.invalid(undefined, 'Request bodies must be JSON, sent with Content-Type: application/json'), undefined),
    );
    // first: the request's span (an inbound `traceparent` is continued); its NATS requests
    // continue it (RpcClient finds it from the request's context) and every line logged about
    // the request names it and the request id (the gateway has no implicit context: initTracing)
    fastify.addHook('onRequest', (request, _reply, done) => {
      request.span = startSpan(`HTTP ${request.method}`, SpanKind.SERVER, extractTraceContext({ get: (name) => request.headers[name] }), {
        'http.request.method': request.method,
        'request.id': request.id,
      });
      const clientRequestId = request.headers['x-request-id'];
      if (typeof clientRequestId === 'string' && CLIENT_REQUEST_ID.test(clientRequestId)) request.clientRequestId = clientRequestId;
      done();
    });
    fastify.addHook('onRequest', (request, reply) => this.admit(request, reply));
    fastify.addHook('preHandler', async (request, reply) => {
      // before the claim: input that can never be stored is not an outcome worth recording
      if (request.body !== undefined && request.routeOptions.url !== undefined) checkBody(request.body);
      return this.claimIdempotencyKey(request, reply);
    });
    // a successful response is shaped for the API version the request asked for (header or the key's pin)
    fastify.addHook('preSerialization', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, body: unknown) => void) => {
      const version = request.ctx?.api_version;
      if (!version || reply.statusCode >= 400 || !hasChangesAfter(version)) return done(null, payload);
      done(null, renderForVersion(payload instanceof RawJson ? payload.parse() : payload, version));
    });
    // a service's reply forwarded as its JSON bytes (RpcClient.forward) is written out as it is
    fastify.setReplySerializer((payload) => (payload instanceof RawJson ? (payload.buffer() as unknown as string) : JSON.stringify(payload)));
    fastify.addHook('onSend', async (request, reply, payload) => {
      await this.settleIdempotencyKey(request, reply, payload);
      return payload;
    });
    fastify.addHook('onResponse', async (request, reply) => observeResponse(request, reply));
  }

  private async admit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.header('Request-Id', request.id);
    if (!isApiRequest(request.routeOptions.url, request.url)) return;
    // A route marked @Public() needs no key (a signed export download link, an email's
    // unsubscribe token, the opt-out portal, the API's own documentation): limited per client
    // address. Only its GET and POST: the HEAD Fastify adds to a GET route is not public.
    const signedLink = publicRouteOf(request).public === true && (request.method === 'GET' || request.method === 'POST');

    const presented = signedLink ? null : parseBearer(request.headers.authorization);
    const record = presented ? await this.keys.findByHash(hashApiKey(presented)) : null;
    const key = record && !record.revoked ? record : null;
    const verdict = key
      ? await this.limiter.hit(`key:${key.key_id}`, this.config.rateLimitPerMinute)
      : await this.limiter.hit(`ip:${request.ip}`, this.config.unauthenticatedRateLimitPerMinute);
    reply.header('RateLimit-Limit', String(verdict.limit));
    reply.header('RateLimit-Remaining', String(verdict.remaining));
    reply.header('RateLimit-Reset', String(verdict.resetSeconds));
    if (!verdict.allowed) {
      throw new ApiError('rate_limited', `Too many requests: the limit is ${verdict.limit} per minute`, undefined, {
        'Retry-After': String(verdict.resetSeconds),
      });
    }
    if (signedLink) {
      this.checkInput(request, false);
      return;
    }
    if (!key) {
      throw new ApiError(
        'authentication_failed',
        presented ? 'The API key is invalid or has been revoked' : 'Send your API key as "Authorization: Bearer <key>"',
      );
    }
    if (!API_PLANS.includes(key.plan)) {
      throw new ApiError('permission_denied', `The ${key.plan} plan does not include API access; the API is part of the agency plan`);
    }
    const asked = request.headers[VERSION_HEADER];
    if (asked !== undefined && (Array.isArray(asked) || !isKnownVersion(asked.trim()))) {
      throw ApiError.invalid('Service-Version', `Unknown API version '${String(asked)}' in the Service-Version header`);
    }
    request.ctx = {
      request_id: request.id,
      workspace_id: key.workspace_id,
      key_id: key.key_id,
      member_id: key.member_id,
      member_role: key.member_role,
      owner_id: key.owner_id,
      mode: key.mode,
      livemode: key.mode === 'live',
      api_version: asked !== undefined && isKnownVersion(asked.trim()) ? asked.trim() as RequestContext['api_version'] : key.api_version,
      plan: key.plan,
      lenses: key.lenses,
    };
    if (request.span) requestSpans.set(request.ctx, request.span);
    this.checkInput(request, true);
  }

  /**
   * One guard for every route, before any handler: a malformed URL (400), characters no
   * database can store in path ids (404) and the query (400), and on the keyed routes query
   * parameters the route's documentation does not list (400). Bodies are checked once parsed
   * (preHandler).
   */
  private checkInput(request: FastifyRequest, strictQuery: boolean): void {
    // routableUrl escaped a percent-encoding that does not decode so the request got this far
    if (request.originalUrl !== request.url) throw ApiError.invalid(undefined, 'The request URL is malformed: a % sign starts no valid percent-encoding');
    const route = request.routeOptions.url;
    if (route === undefined) return; // no such route: 404 follows
    checkPathParameters(request);
    if (request.url.includes('?')) checkQuery(request, strictQuery ? this.catalog.queryParameters(request.method, route) : undefined);
  }

  private async claimIdempotencyKey(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (request.method !== 'POST' || !request.ctx || header === undefined) return;
    if (Array.isArray(header) || header.length === 0 || header.length > 255) {
      throw ApiError.invalid('Idempotency-Key', 'Idempotency-Key must be a single value of 1 to 255 characters');
    }
    // a stored answer is given only to the API key it was made for, with what that key may do
    // unchanged: the replay below comes before the route's guards, which would decide the same
    const scope: IdempotencyScope = { workspaceId: request.ctx.workspace_id, keyId: request.ctx.key_id, grants: grantsOf(request.ctx) };
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    const claim = await this.idempotency.claim(scope, header, fingerprint);
    switch (claim.kind) {
      case 'claimed':
        request.idempotency = { scope, key: header, token: claim.token };
        request.ctx.idempotency = { key: scopedServiceKey(scope.keyId, header), request_hash: fingerprint };
        return;
      case 'replay':
        await reply.code(claim.status).header('Idempotent-Replayed', 'true').type('application/json; charset=utf-8').send(claim.body);
        return;
      case 'mismatch':
        throw new ApiError('conflict', IDEMPOTENCY_CONFLICT_MESSAGES.mismatch, 'Idempotency-Key');
      case 'in_progress':
        throw new ApiError('conflict', IDEMPOTENCY_CONFLICT_MESSAGES.inProgress, 'Idempotency-Key');
      case 'other_grants':
        throw new ApiError('conflict', IDEMPOTENCY_CONFLICT_MESSAGES.otherGrants, 'Idempotency-Key');
    }
  }

  private async settleIdempotencyKey(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
    const claim = request.idempotency;
    if (!claim) return;
    request.idempotency = undefined;
    await this.idempotency.settle(claim.scope, claim.key, claim.token, reply.statusCode, String(payload));
  }
}
