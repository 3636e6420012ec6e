import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from '@nats-io/transport-node';
import { isDomainErrorPayload, RequestContext, RpcRequest } from '@app/contracts';
import { askService, DomainError, NATS_CONNECTION, ReplyPacket } from '@app/platform';

/** Thrown when the other service did not answer: whether it acted is unknown. */
export class NoAnswer extends Error {}

/** Request-reply to another service as the gateway asks it; its domain errors pass through. */
@Injectable()
export class ServiceClient {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  async ask<T>(subject: string, ctx: RequestContext, body: unknown, timeoutMs = Number(process.env.SEARCH_PEER_TIMEOUT_MS || 5000)): Promise<T> {
    const data: RpcRequest = { ctx, body };
    let packet: ReplyPacket<T>;
    try {
      packet = await askService<T>(this.nc, subject, data, timeoutMs);
    } catch (err) {
      throw new NoAnswer(`${subject}: ${(err as Error).message}`);
    }
    if (packet.err !== undefined && packet.err !== null) {
      if (isDomainErrorPayload(packet.err)) throw new DomainError(packet.err.code, packet.err.message, packet.err.param);
      throw new DomainError('internal_error', `${subject} failed`);
    }
    return packet.response as T;
  }
}
