import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from '@nats-io/transport-node';
import {
  ApiVersion, CreatedWebhookEndpoint, CreateWebhookEndpointDto, DeletedEnvelope, ID_PREFIX, ListEnvelope,
  ListWebhookEndpointsRequest, RequestContext, RolledWebhookEndpoint, UpdateWebhookEndpointRequest, WEBHOOK_LIMITS, WebhookAttempt, WebhookEndpoint,
} from '@app/contracts';
import { DomainError, NATS_CONNECTION, newId, newSigningSecret, toListPage, UnitOfWork } from '@app/platform';
import { literalAllowed } from '../dispatch/address-guard';
import { ENDPOINT_DELETED_SUBJECT } from '../dispatch/dispatcher';
import { OutcomesRepository } from '../dispatch/outcomes.repository';
import { decryptSecret, encryptSecret } from '../secrets';
import { WEBHOOKS_CONFIG, WebhooksConfig } from '../webhooks-config';
import { renderEndpoint } from './endpoint.mapper';
import { EndpointsRepository } from './endpoints.repository';

@Injectable()
export class EndpointsService {
  constructor(
    private readonly endpoints: EndpointsRepository,
    private readonly outcomes: OutcomesRepository,
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly uow: UnitOfWork,
  ) {}

  async list(ctx: RequestContext, query: ListWebhookEndpointsRequest): Promise<ListEnvelope<WebhookEndpoint>> {
    const rows = await this.endpoints.list(ctx.workspace_id, query.limit, query.starting_after);
    return toListPage(rows, query.limit, renderEndpoint);
  }

  async get(ctx: RequestContext, id: string): Promise<WebhookEndpoint> {
    const row = await this.endpoints.findById(ctx.workspace_id, id);
    if (!row) throw DomainError.notFound('webhook endpoint', id, 'id');
    return renderEndpoint(row);
  }

  /**
   * The fields sent change; the others stay. Switched off, the endpoint's pending retries are
   * dropped as when 100 failed deliveries disable it (an attempt in flight finishes); switched
   * back on, its failure count restarts and it receives new events only.
   */
  async update(ctx: RequestContext, body: UpdateWebhookEndpointRequest): Promise<WebhookEndpoint> {
    if (body.url !== undefined) this.checkAddress(body.url);
    const row = await this.uow.run(async (tx) => {
      const updated = await this.endpoints.update(tx, ctx.workspace_id, body.id, {
        url: body.url, events: body.events && [...new Set(body.events)], description: body.description, status: body.status,
      });
      if (updated?.status === 'disabled') await this.outcomes.dropPendingOf(tx, [updated.id]);
      return updated;
    });
    if (!row) throw DomainError.notFound('webhook endpoint', body.id, 'id');
    return renderEndpoint(row);
  }

  /**
   * A new secret, shown in this answer only. The secret it replaces signs beside it (a second
   * `v1`) for WEBHOOK_SECRET_ROLL_GRACE_MS, so receivers can switch without missing a delivery.
   */
  async rollSecret(ctx: RequestContext, id: string): Promise<RolledWebhookEndpoint> {
    const secret = newSigningSecret();
    return this.uow.run((tx) =>
      // asked again with its Idempotency-Key: the secret the first roll made, never a third one
      this.endpoints.rollKeys.run(tx, ctx, id, async () => {
        const row = await this.endpoints.rollSecret(tx, ctx.workspace_id, id, encryptSecret(secret, this.config.secretKey), this.config.secretRollGraceMs);
        if (!row) throw DomainError.notFound('webhook endpoint', id, 'id');
        return { ...renderEndpoint(row), secret, previous_secret_expires_at: row.previous_secret_expires_at.toISOString() };
      }, async (earlier) => (await this.endpoints.findById(ctx.workspace_id, earlier, tx)) !== undefined),
    );
  }

  /**
   * A literal address is judged now, since no DNS answer can change it; a host name is judged
   * on every attempt, on the addresses actually connected to.
   */
  private checkAddress(url: string): void {
    // the host as WHATWG URL reads it, which is what the sender connects to: `2130706433`, `0x7f.1`
    // and `127.1` are all 127.0.0.1 by then
    const host = URL.parse(url)?.hostname;
    if (host === undefined) throw DomainError.invalid('url', 'url must be an absolute URL');
    if (!literalAllowed(host, this.config.allowedHosts)) {
      throw DomainError.invalid('url', 'url names an address that is not public (private, loopback, link-local, reserved, or an IPv6 form embedding an IPv4 address), to which nothing is ever delivered');
    }
  }

  /**
   * A new endpoint pinned at the request's API version; the secret is shown in this answer only.
   * A workspace has at most WEBHOOK_LIMITS.endpoints, live and test keys' together.
   */
  async create(ctx: RequestContext, body: CreateWebhookEndpointDto): Promise<CreatedWebhookEndpoint> {
    this.checkAddress(body.url);
    const id = newId(ID_PREFIX.webhookEndpoint);
    const secret = newSigningSecret();
    return this.uow.run((tx) => {
      // a retry of a create the gateway timed out on: the same endpoint and secret, never a second one
      const earlier = async (earlierId: string): Promise<CreatedWebhookEndpoint | undefined> => {
        const row = await this.endpoints.findById(ctx.workspace_id, earlierId, tx);
        return row && { ...renderEndpoint(row), secret: decryptSecret(row.secret_enc, this.config.secretKey) };
      };
      return this.endpoints.createKeys.run(tx, ctx, id, async () => {
        if ((await this.endpoints.countForCreate(tx, ctx.workspace_id)) >= WEBHOOK_LIMITS.endpoints) {
          throw new DomainError(
            'invalid_request',
            `A workspace has at most ${WEBHOOK_LIMITS.endpoints} webhook endpoints; delete one (an endpoint may subscribe to several event types, or to '*') before adding another`,
          );
        }
        const row = await this.endpoints.insert(tx, {
          id,
          workspace_id: ctx.workspace_id,
          livemode: ctx.livemode,
          url: body.url,
          description: body.description ?? null,
          events: [...new Set(body.events)],
          api_version: ctx.api_version as ApiVersion,
          secret_enc: encryptSecret(secret, this.config.secretKey),
        });
        return { ...renderEndpoint(row), secret };
      }, earlier);
    });
  }

  /** Removes the endpoint with its pending retries and aborts attempts in flight on every replica. */
  async delete(ctx: RequestContext, id: string): Promise<DeletedEnvelope> {
    if (!(await this.endpoints.delete(ctx.workspace_id, id))) throw DomainError.notFound('webhook endpoint', id, 'id');
    this.nc.publish(ENDPOINT_DELETED_SUBJECT, id);
    return { id, object: 'webhook_endpoint', deleted: true };
  }

  async enable(id: string): Promise<WebhookEndpoint> {
    const row = await this.endpoints.enable(id);
    if (!row) throw DomainError.notFound('webhook endpoint', id, 'endpoint');
    return renderEndpoint(row);
  }

  async attempts(endpointId: string, limit = 50): Promise<{ endpoint: WebhookEndpoint & { consecutive_failures: number }; attempts: WebhookAttempt[] }> {
    const row = await this.endpoints.findById(null, endpointId);
    if (!row) throw DomainError.notFound('webhook endpoint', endpointId, 'endpoint');
    const rows = await this.endpoints.attempts(endpointId, Math.min(Math.max(Number(limit) || 50, 1), 1000));
    return {
      endpoint: { ...renderEndpoint(row), consecutive_failures: row.consecutive_failures },
      attempts: rows.map((r) => ({
        ...r,
        attempted_at: r.attempted_at.toISOString(),
        next_attempt_at: r.next_attempt_at ? r.next_attempt_at.toISOString() : null,
      })),
    };
  }

  /** Tests only (WEBHOOK_TEST_CLOCK=1): moves the retry clock forward by `ms`. */
  async advanceClock(ms: number): Promise<{ offset_ms: number }> {
    if (!this.config.testClock) throw new DomainError('permission_denied', 'the test clock is off (WEBHOOK_TEST_CLOCK=1 turns it on)');
    if (!Number.isInteger(ms) || ms < 0) throw DomainError.invalid('ms', 'ms must be a non-negative integer');
    return { offset_ms: await this.endpoints.advanceTestClock(ms) };
  }
}
