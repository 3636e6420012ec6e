import { Inject, Injectable } from '@nestjs/common';
import { CompanyFact, MatchOrganizationRequest, RequestContext, SUBJECTS } from '@app/contracts';
import { NoAnswer, rootLogger, ServiceClient } from '@app/platform';
import { CRM_CONFIG, CrmConfig } from '../crm.config';

/**
 * Asks search for what the organisation record (OpenCorporates, SEC issuer) matching a new company
 * says of it. Best effort: a lead is never refused or held up because search did not answer
 * (ORG_MATCH_TIMEOUT_MS); its company then starts without those facts, and a later reveal that
 * links to it fills them.
 */
@Injectable()
export class OrganizationsClient {
  private readonly log = rootLogger('crm');

  constructor(
    private readonly peers: ServiceClient,
    @Inject(CRM_CONFIG) private readonly config: CrmConfig,
  ) {}

  async factsOf(ctx: RequestContext, domain: string | null, name: string | null): Promise<CompanyFact[]> {
    const body: MatchOrganizationRequest = { domain, name };
    try {
      const facts = await this.peers.ask<CompanyFact[]>(SUBJECTS.search.organizationsMatch, ctx, body, this.config.orgMatchTimeoutMs);
      return Array.isArray(facts) ? facts : [];
    } catch (err) {
      if (err instanceof NoAnswer) this.log.warn({ request_id: ctx.request_id, err: (err as Error).message }, 'organisation record look-up unanswered; company created without it');
      else this.log.warn({ request_id: ctx.request_id, err: (err as Error).message }, 'organisation record look-up refused; company created without it');
    }
    return [];
  }
}
