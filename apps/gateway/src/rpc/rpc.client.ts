import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { NatsConnection } from '@nats-io/transport-node';
import { RequestContext } from '@app/contracts';
import { connectNats, DomainError, histogram, NoAnswer, RawJson, rootLogger, SERVICE_CONFIG, ServiceClient, ServiceFailed } from '@app/platform';
import { GatewayConfig } from '../config';
import { ApiError } from '../http/api-error';
import { requestSpans } from '../http/request-span';

const requestLatency = histogram('nats_request_duration_seconds', 'NATS request-reply latency from the gateway, by subject and outcome', ['subject', 'outcome']);

/**
 * Request-reply to the services over NATS, through the mesh's one client (ServiceClient) on a
 * connection of its own. Every request has a deadline; a subject nobody serves fails at once
 * (NATS answers "no responders"; after ServiceClient's grace for a retryable request): that is
 * 503 `service_unavailable` with `Retry-After`, nothing having run; domain errors come back as the
 * spec's codes (a service whose database connection broke under the request answers
 * `service_unavailable` too: ServiceErrorFilter) and anything else as 500 `internal_error`
 * without internals.
 */
@Injectable()
export class RpcClient implements OnApplicationBootstrap, OnApplicationShutdown {
  private nc?: NatsConnection;
  private client?: Promise<ServiceClient>;
  private ready?: ServiceClient;
  private readonly log = rootLogger('gateway');

  constructor(@Inject(SERVICE_CONFIG) private readonly config: GatewayConfig) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.connected();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nc?.close();
  }

  /** The service's answer to `body`, parsed (within `timeoutMs` when given, else the RPC deadline). */
  send<T>(subject: string, ctx: RequestContext, body: unknown, timeoutMs?: number): Promise<T> {
    return this.exchange(subject, ctx, body, false, timeoutMs) as Promise<T>;
  }

  /**
   * The service's answer to `body` for the HTTP response as it is: its JSON bytes, not parsed and
   * serialised again (the reply serializer writes them out; see GatewayPipeline).
   */
  forward<T>(subject: string, ctx: RequestContext, body: unknown): Promise<Forwarded<T>> {
    return this.exchange(subject, ctx, body, true) as Promise<Forwarded<T>>;
  }

  /** The client on the gateway's own connection for requests (its identity's, named gateway-rpc). */
  private connected(): Promise<ServiceClient> {
    this.client ??= connectNats(this.config.nats, 'gateway-rpc', rootLogger()).then(
      (nc) => (this.ready = new ServiceClient((this.nc = nc), this.config)),
      (err: unknown) => {
        this.client = undefined;
        throw err;
      },
    );
    return this.client;
  }

  private async exchange(subject: string, ctx: RequestContext, body: unknown, raw: boolean, timeoutMs?: number): Promise<unknown> {
    const client = this.ready ?? (await this.connected());
    const parent = requestSpans.get(ctx);
    const started = process.hrtime.bigint();
    const observe = (outcome: string) => requestLatency.observe({ subject, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
    try {
      const reply = raw ? await client.forward(subject, ctx, body, { parent }) : await client.ask(subject, ctx, body, { parent, timeoutMs });
      observe('ok');
      return reply;
    } catch (err) {
      if (err instanceof DomainError && !(err instanceof NoAnswer) && !(err instanceof ServiceFailed)) {
        observe('domain_error');
        throw new ApiError(err.code, err.message, err.param);
      }
      const reason = (err as Error)?.message ?? String(err);
      if (err instanceof NoAnswer && err.noResponders) {
        // every replica out of its queue groups (its database failing over) or none running: the request did not run
        observe('unavailable');
        this.log.warn({ trace_id: parent?.spanContext().traceId, request_id: ctx.request_id, workspace_id: ctx.workspace_id, subject, reason }, 'no service took the request');
        throw ApiError.unavailable('The service is not answering for the moment (nothing was done); retry after Retry-After seconds (with the same Idempotency-Key on POST)');
      }
      observe('failed');
      this.log.error({ trace_id: parent?.spanContext().traceId, request_id: ctx.request_id, workspace_id: ctx.workspace_id, subject, reason, err }, 'service request failed');
      throw new ApiError('internal_error', 'The service could not complete the request; retry later (with the same Idempotency-Key on POST)');
    }
  }
}

/** A service's answer on its way to the HTTP response: its JSON bytes (RawJson) or, from an older service, the parsed value. */
export type Forwarded<T> = RawJson<T> | T;
