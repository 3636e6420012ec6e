import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from '@nats-io/transport-node';
import { isDomainErrorPayload, RequestContext, RpcRequest } from '@app/contracts';
import { ServiceConfig } from './config';
import { DomainError } from './domain-error';
import { askService, ReplyPacket } from './reply-mux';
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
 * Request-reply to another service, asked as the gateway asks it (askService: the `{ctx, body}`
 * envelope, `Request-Id` and the caller's trace). One policy for every service: every request has
 * a deadline (RPC_TIMEOUT_MS unless the caller passes its own setting); no answer is NoAnswer; a
 * domain error of the other service is thrown as the same DomainError (code, message, param);
 * any other failure of it is `internal_error` without its internals.
 */
@Injectable()
export class ServiceClient {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(SERVICE_CONFIG) private readonly config: Pick<ServiceConfig, 'rpcTimeoutMs'>,
  ) {}

  async ask<T>(subject: string, ctx: RequestContext, body: unknown, timeoutMs = this.config.rpcTimeoutMs): Promise<T> {
    const data: RpcRequest = { ctx, body };
    let packet: ReplyPacket<T>;
    try {
      packet = await askService<T>(this.nc, subject, data, timeoutMs);
    } catch (err) {
      throw new NoAnswer(subject, (err as Error).message);
    }
    if (packet.err !== undefined && packet.err !== null) {
      if (isDomainErrorPayload(packet.err)) throw new DomainError(packet.err.code, packet.err.message, packet.err.param);
      throw new DomainError('internal_error', `${subject} failed`);
    }
    return packet.response as T;
  }
}
