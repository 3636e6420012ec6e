import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { NatsRecordBuilder } from '@nestjs/microservices';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { isDomainErrorPayload, RequestContext, RpcRequest } from '@app/contracts';
import { endSpan, histogram, injectTraceContext, MuxClientNats, natsConnectOptions, RawJson, rootLogger, SERVICE_CONFIG, SpanKind, startSpan } from '@app/platform';
import { GatewayConfig } from '../config';
import { ApiError } from '../http/api-error';
import { requestSpans } from '../http/request-span';

const requestLatency = histogram('nats_request_duration_seconds', 'NATS request-reply latency from the gateway, by subject and outcome', ['subject', 'outcome']);

/**
 * Request-reply to the services over NATS. Every request has a deadline; a subject nobody
 * serves fails at once (NATS answers "no responders"); domain errors come back as the spec's
 * codes and anything else as 500 `internal_error` without internals.
 */
@Injectable()
export class RpcClient implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly client: MuxClientNats;
  private readonly log = rootLogger('gateway');

  constructor(@Inject(SERVICE_CONFIG) config: GatewayConfig) {
    this.client = new MuxClientNats(
      natsConnectOptions(config.nats, 'gateway-rpc'),
      config.rpcTimeoutMs,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.client.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }

  /** The service's answer to `body`, parsed. */
  send<T>(subject: string, ctx: RequestContext, body: unknown): Promise<T> {
    return this.exchange(subject, ctx, body, false) as Promise<T>;
  }

  /**
   * The service's answer to `body` for the HTTP response as it is: its JSON bytes, not parsed and
   * serialised again (the reply serializer writes them out; see GatewayPipeline).
   */
  forward<T>(subject: string, ctx: RequestContext, body: unknown): Promise<Forwarded<T>> {
    return this.exchange(subject, ctx, body, true) as Promise<Forwarded<T>>;
  }

  private async exchange(subject: string, ctx: RequestContext, body: unknown, raw: boolean): Promise<unknown> {
    const span = startSpan(`nats ${subject}`, SpanKind.CLIENT, requestSpans.get(ctx), { 'messaging.destination.name': subject });
    // The request id and the trace context travel as NATS headers too, for the service's logs and spans.
    const headers = natsHeaders();
    headers.set('Request-Id', ctx.request_id);
    injectTraceContext(span, (key, value) => headers.set(key, value));
    const message = new NatsRecordBuilder<RpcRequest>({ ctx, body }).setHeaders(headers).build();
    const started = process.hrtime.bigint();
    const observe = (outcome: string) => {
      requestLatency.observe({ subject, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
      endSpan(span, outcome === 'failed', { outcome });
    };
    try {
      const reply = raw ? await this.client.requestRaw(subject, message) : await this.client.request(subject, message);
      observe('ok');
      return reply;
    } catch (err) {
      if (isDomainErrorPayload(err)) {
        observe('domain_error');
        throw new ApiError(err.code, err.message, err.param);
      }
      observe('failed');
      const reason = (err as Error)?.message ?? String(err);
      this.log.error({ trace_id: span.spanContext().traceId, request_id: ctx.request_id, workspace_id: ctx.workspace_id, subject, reason, err }, 'service request failed');
      throw new ApiError('internal_error', 'The service could not complete the request; retry later (with the same Idempotency-Key on POST)');
    }
  }
}

/** A service's answer on its way to the HTTP response: its JSON bytes (RawJson) or, from an older service, the parsed value. */
export type Forwarded<T> = RawJson<T> | T;
