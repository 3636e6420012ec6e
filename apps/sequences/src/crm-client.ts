import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from '@nats-io/transport-node';
import { CURRENT_API_VERSION, LeadContact, RequestContext, RpcRequest, SUBJECTS } from '@app/contracts';
import { askService, DomainError, NATS_CONNECTION, ReplyPacket } from '@app/platform';

const TIMEOUT_MS = 10_000;

/** Request-reply to crm as the gateway would ask it (same envelope, same deadline rule). */
@Injectable()
export class CrmClient {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  async ask<T>(subject: string, ctx: RequestContext, body: unknown): Promise<T> {
    const data: RpcRequest = { ctx, body };
    let packet: ReplyPacket<T>;
    try {
      packet = await askService<T>(this.nc, subject, data, TIMEOUT_MS);
    } catch (err) {
      throw new DomainError('internal_error', `crm did not answer ${subject}: ${(err as Error).message}`);
    }
    if (packet.err !== undefined && packet.err !== null) throw new DomainError('internal_error', `crm refused ${subject}`);
    return packet.response as T;
  }

  getLeads(ctx: RequestContext, ids: string[]): Promise<LeadContact[]> {
    return this.ask<LeadContact[]>(SUBJECTS.crm.leadsGetMany, ctx, { ids });
  }

  /** The workspaces that have a lead at this address (the opt-out portal announces to each). */
  async workspacesWithLead(email: string): Promise<string[]> {
    const ctx = { workspace_id: '', key_id: 'optout-portal', livemode: true, api_version: CURRENT_API_VERSION } as RequestContext;
    return (await this.ask<{ workspace_ids: string[] }>(SUBJECTS.crm.leadsWorkspacesByEmail, ctx, { email })).workspace_ids;
  }
}
