import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from '@nats-io/transport-node';
import { isDomainErrorPayload, RequestContext, RpcRequest } from '@app/contracts';
import { ServiceConfig } from './config';
import { DomainError } from './domain-error';
import { AskOptions, askService, RawJson, ReplyPacket } from './reply-mux';
import { NATS_CONNECTION, SERVICE_CONFIG } from './tokens';

/**
 * The other service did not answer (no reply by the deadline, nobody serves the subject, the
 * connection closed): whether it acted is unknown. Left unhandled it answers `internal_error`.
 */
export class NoAnswer extends DomainError {
  constructor(readonly subject: string, reason: string) {
    super('internal_error', `${subject} did not answer: ${reason}`);
  }
}

/**
 * The other service answered with a failure that is not a domain error (a bug of it): its
 * internals stay there. Left unhandled it answers `internal_error`.
 */
export class ServiceFailed extends DomainError {
  constructor(readonly subject: string, readonly payload: unknown) {
    super('internal_error', `${subject} failed`);
  }
}

/** Options of one request: its deadline and the trace it continues (see AskOptions). */
export interface ServiceRequestOptions {
  timeoutMs?: number;
  parent?: AskOptions['parent'];
}

/**
 * Request-reply to another service: the one client of the mesh, for the services and the gateway
 * (its RpcClient asks through one). The `{ctx, body}` envelope, `Request-Id` and the caller's
 * trace go with every request (askService). One policy: every request has a deadline
 * (RPC_TIMEOUT_MS unless the caller passes its own setting); no answer is NoAnswer; a domain
 * error of the other service is thrown as the same DomainError (code, message, param); any other
 * failure of it is ServiceFailed (`internal_error` without its internals).
 */
@Injectable()
export class ServiceClient {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(SERVICE_CONFIG) private readonly config: Pick<ServiceConfig, 'rpcTimeoutMs'>,
  ) {}

  /** The service's answer to `body`, parsed. */
  ask<T>(subject: string, ctx: RequestContext, body: unknown, options: number | ServiceRequestOptions = {}): Promise<T> {
    return this.exchange<T>(subject, ctx, body, typeof options === 'number' ? { timeoutMs: options } : options, false) as Promise<T>;
  }

  /**
   * The service's answer to `body` as its JSON bytes (RawJson), for an HTTP response that passes
   * it on unparsed; the parsed value from a service that answered without them.
   */
  forward<T>(subject: string, ctx: RequestContext, body: unknown, options: ServiceRequestOptions = {}): Promise<RawJson<T> | T> {
    return this.exchange<T>(subject, ctx, body, options, true);
  }

  private async exchange<T>(subject: string, ctx: RequestContext, body: unknown, options: ServiceRequestOptions, raw: boolean): Promise<RawJson<T> | T> {
    const data: RpcRequest = { ctx, body };
    let packet: ReplyPacket<RawJson<T> | T>;
    try {
      packet = await askService<RawJson<T> | T>(this.nc, subject, data, options.timeoutMs ?? this.config.rpcTimeoutMs, { raw, parent: options.parent });
    } catch (err) {
      throw new NoAnswer(subject, (err as Error).message);
    }
    if (packet.err !== undefined && packet.err !== null) {
      if (isDomainErrorPayload(packet.err)) throw new DomainError(packet.err.code, packet.err.message, packet.err.param);
      throw new ServiceFailed(subject, packet.err);
    }
    return packet.response as RawJson<T> | T;
  }
}
