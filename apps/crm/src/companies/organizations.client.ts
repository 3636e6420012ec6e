import { Inject, Injectable } from '@nestjs/common';
import { NatsConnection } from '@nats-io/transport-node';
import { CompanyFact, MatchOrganizationRequest, RequestContext, RpcRequest, SUBJECTS } from '@app/contracts';
import { askService, envInt, NATS_CONNECTION, rootLogger } from '@app/platform';

/**
 * Asks search for what the organisation record (OpenCorporates, SEC issuer) matching a new company
 * says of it. Best effort: a lead is never refused or held up because search did not answer
 * (ORG_MATCH_TIMEOUT_MS); its company then starts without those facts, and a later reveal that
 * links to it fills them.
 */
@Injectable()
export class OrganizationsClient {
  private readonly log = rootLogger('crm');
  private readonly timeoutMs = envInt(process.env, 'ORG_MATCH_TIMEOUT_MS', 1_000, 50, 30_000);

  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  async factsOf(ctx: RequestContext, domain: string | null, name: string | null): Promise<CompanyFact[]> {
    const body: MatchOrganizationRequest = { domain, name };
    try {
      const packet = await askService<CompanyFact[]>(this.nc, SUBJECTS.search.organizationsMatch, { ctx, body } satisfies RpcRequest, this.timeoutMs);
      if (packet.err === undefined || packet.err === null) return Array.isArray(packet.response) ? packet.response : [];
      this.log.warn({ request_id: ctx.request_id, err: packet.err }, 'organisation record look-up refused; company created without it');
    } catch (err) {
      this.log.warn({ request_id: ctx.request_id, err: (err as Error).message }, 'organisation record look-up unanswered; company created without it');
    }
    return [];
  }
}
