import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from '@nats-io/transport-node';
import { LeadContact, RequestContext, RpcRequest, SUBJECTS } from '@app/contracts';
import { DomainError, NATS_CONNECTION, randomToken } from '@app/platform';

const TIMEOUT_MS = 10_000;

/** Request-reply to crm as the gateway would ask it (same envelope, same deadline rule). */
@Injectable()
export class CrmClient {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  async ask<T>(subject: string, ctx: RequestContext, body: unknown): Promise<T> {
    const data: RpcRequest = { ctx, body };
    let packet: { response?: T; err?: unknown };
    try {
      const reply = await this.nc.request(subject, JSON.stringify({ pattern: subject, data, id: randomToken(12) }), { timeout: TIMEOUT_MS });
      packet = reply.json();
    } catch (err) {
      throw new DomainError('internal_error', `crm did not answer ${subject}: ${(err as Error).message}`);
    }
    if (packet.err !== undefined && packet.err !== null) throw new DomainError('internal_error', `crm refused ${subject}`);
    return packet.response as T;
  }

  getLeads(ctx: RequestContext, ids: string[]): Promise<LeadContact[]> {
    return this.ask<LeadContact[]>(SUBJECTS.crm.leadsGetMany, ctx, { ids });
  }

  markEmailInvalid(ctx: RequestContext, leadId: string): Promise<unknown> {
    return this.ask(SUBJECTS.crm.leadsMarkEmailInvalid, ctx, { id: leadId });
  }
}
