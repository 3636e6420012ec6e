import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Pool } from 'pg';
import { GetLeadsRequest, LeadContact, RpcRequest, SUBJECTS } from '@app/contracts';
import { DomainError, PG_POOL, unpack } from '@app/platform';

/** Internal subjects other services ask about many leads at once (sequences enrolling a batch, the opt-out portal). */
@Controller()
export class LeadsBatchController {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** The contact fields of the workspace's leads among `ids` (unknown ids are simply absent), in one query. */
  @MessagePattern(SUBJECTS.crm.leadsGetMany)
  async getMany(@Payload() message: RpcRequest<GetLeadsRequest>): Promise<LeadContact[]> {
    const { ctx, body } = unpack(message);
    if (!Array.isArray(body?.ids) || body.ids.length > 1000 || body.ids.some((id) => typeof id !== 'string')) {
      throw DomainError.invalid('ids', 'ids must be an array of at most 1000 lead ids');
    }
    const { rows } = await this.pool.query<LeadContact>(
      `SELECT id, email, email_status, first_name, last_name, full_name, title, company_name, country, lawful_basis,
              to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at
       FROM leads WHERE workspace_id = $1 AND id = ANY($2)`,
      [ctx.workspace_id, body.ids],
    );
    return rows;
  }

  /**
   * Every workspace with a lead at `email` (case-insensitive): a global opt-out is announced to each.
   * An exact ILIKE (wildcards escaped) so that the trigram index on email answers it across workspaces.
   */
  @MessagePattern(SUBJECTS.crm.leadsWorkspacesByEmail)
  async workspacesByEmail(@Payload() message: RpcRequest<{ email: string }>): Promise<{ workspace_ids: string[] }> {
    const { body } = unpack(message);
    if (typeof body?.email !== 'string' || !body.email.includes('@') || body.email.length > 320) throw DomainError.invalid('email', 'email must be an email address');
    const pattern = body.email.trim().replace(/[\\%_]/g, (c) => `\\${c}`);
    const { rows } = await this.pool.query<{ workspace_id: string }>(
      `SELECT DISTINCT workspace_id FROM leads WHERE email ILIKE $1 AND lower(email) = lower($2) ORDER BY workspace_id`,
      [pattern, body.email.trim()],
    );
    return { workspace_ids: rows.map((r) => r.workspace_id) };
  }
}
