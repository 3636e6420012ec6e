import { Injectable } from '@nestjs/common';
import { CURRENT_API_VERSION, LeadContact, RequestContext, SUBJECTS } from '@app/contracts';
import { ServiceClient } from '@app/platform';

/** What sequences asks crm, through the platform's ServiceClient (its deadline, RPC_TIMEOUT_MS, and its error policy). */
@Injectable()
export class CrmClient {
  constructor(private readonly peers: ServiceClient) {}

  getLeads(ctx: RequestContext, ids: string[]): Promise<LeadContact[]> {
    return this.peers.ask<LeadContact[]>(SUBJECTS.crm.leadsGetMany, ctx, { ids });
  }

  /** The workspaces that have a lead at this address (the opt-out portal announces to each). */
  async workspacesWithLead(email: string): Promise<string[]> {
    const ctx = { workspace_id: '', key_id: 'optout-portal', livemode: true, api_version: CURRENT_API_VERSION } as RequestContext;
    return (await this.peers.ask<{ workspace_ids: string[] }>(SUBJECTS.crm.leadsWorkspacesByEmail, ctx, { email })).workspace_ids;
  }
}
