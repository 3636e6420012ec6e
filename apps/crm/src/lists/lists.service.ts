import { Injectable } from '@nestjs/common';
import {
  CreateListRequest, ID_PREFIX, LeadList, LeadListAdded, LeadListRemoved, LIST_LIMITS, ListIdRequest, ListMembersRequest, RequestContext,
} from '@app/contracts';
import { DomainError, newId, Tx, UnitOfWork } from '@app/platform';
import { LeadsRepository } from '../leads/leads.repository';
import { renderList } from './list.mapper';
import { ListsRepository } from './lists.repository';

const UNIQUE_VIOLATION = '23505';
/** How many unknown lead IDs an error names; the rest are counted. */
const NAMED_IN_ERROR = 10;

/** The request's lead IDs: 1 to LIST_LIMITS.leadsPerRequest non-empty strings, each kept once in first-seen order. */
function leadIdsOf(request: ListMembersRequest | undefined): string[] {
  const ids = request?.lead_ids;
  if (!Array.isArray(ids) || ids.length === 0) throw DomainError.invalid('lead_ids', 'lead_ids must be a non-empty array of lead IDs');
  if (ids.length > LIST_LIMITS.leadsPerRequest) {
    throw DomainError.invalid('lead_ids', `lead_ids holds at most ${LIST_LIMITS.leadsPerRequest} lead IDs per request`);
  }
  if (!ids.every((id) => typeof id === 'string' && id !== '')) throw DomainError.invalid('lead_ids', 'every lead ID must be a non-empty string');
  return [...new Set(ids)];
}

function listIdOf(request: { list_id?: unknown } | undefined): string {
  const id = request?.list_id;
  if (typeof id !== 'string' || id === '') throw DomainError.invalid('list_id', 'list_id is required');
  return id;
}

/**
 * Lists of leads, written by the application side: no gateway validates these requests, so crm
 * checks the fields. A request naming any lead that is not a lead of the list's workspace
 * (unknown, deleted, or another workspace's) changes nothing.
 */
@Injectable()
export class ListsService {
  constructor(
    private readonly lists: ListsRepository,
    private readonly leads: LeadsRepository,
    private readonly uow: UnitOfWork,
  ) {}

  async create(ctx: RequestContext, request: CreateListRequest): Promise<LeadList> {
    const name = typeof request?.name === 'string' ? request.name.trim() : '';
    if (name === '') throw DomainError.invalid('name', 'name must be a non-empty string');
    if (name.length > LIST_LIMITS.name) throw DomainError.invalid('name', `name must be at most ${LIST_LIMITS.name} characters`);
    try {
      return renderList(await this.lists.insert({ id: newId(ID_PREFIX.list), workspace_id: ctx.workspace_id, name }), 0);
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw DomainError.conflict(`This workspace already has a list named '${name}'`, 'name');
      throw err;
    }
  }

  addLeads(ctx: RequestContext, request: ListMembersRequest): Promise<LeadListAdded> {
    return this.change(ctx, request, async (tx, listId, leadIds) => ({ added: await this.lists.addMembers(tx.manager, listId, leadIds) }));
  }

  removeLeads(ctx: RequestContext, request: ListMembersRequest): Promise<LeadListRemoved> {
    return this.change(ctx, request, async (tx, listId, leadIds) => ({ removed: await this.lists.removeMembers(tx.manager, listId, leadIds) }));
  }

  /** The workspace of a list, for the admin CLI only (which names a list without its workspace). */
  async owner(ctx: RequestContext, request: ListIdRequest): Promise<{ workspace_id: string }> {
    const id = String(request?.id);
    if (ctx.key_id !== 'admin-cli') throw DomainError.notFound('list', id, 'list_id');
    const workspaceId = await this.lists.workspaceOf(id);
    if (!workspaceId) throw DomainError.notFound('list', id, 'list_id');
    return { workspace_id: workspaceId };
  }

  /** Checks the request, holds its leads against deletion while `apply` runs, then answers the list as it now is. */
  private async change<T extends object>(
    ctx: RequestContext,
    request: ListMembersRequest,
    apply: (tx: Tx, listId: string, leadIds: string[]) => Promise<T>,
  ): Promise<LeadList & T> {
    const listId = listIdOf(request);
    const leadIds = leadIdsOf(request);
    return this.uow.run(async (tx) => {
      const list = await this.lists.findById(tx.manager, ctx.workspace_id, listId, true);
      if (!list) throw DomainError.notFound('list', listId, 'list_id');
      const found = await this.leads.lockLeads(tx.client, ctx.workspace_id, leadIds);
      const unknown = leadIds.filter((id) => !found.has(id));
      if (unknown.length > 0) {
        const named = unknown.slice(0, NAMED_IN_ERROR).map((id) => `'${id}'`).join(', ');
        const more = unknown.length > NAMED_IN_ERROR ? ` and ${unknown.length - NAMED_IN_ERROR} more` : '';
        throw new DomainError('not_found', `No such lead in this workspace: ${named}${more}; the list was not changed`, 'lead_ids');
      }
      const outcome = await apply(tx, list.id, leadIds);
      return { ...renderList(list, await this.lists.countMembers(tx.manager, list.id)), ...outcome };
    });
  }
}
