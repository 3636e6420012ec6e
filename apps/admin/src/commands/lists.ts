import type { RequestContext } from '@app/contracts/context';
import type { CreateListRequest, ListIdRequest, ListMembersRequest } from '@app/contracts/dto/list.dto';
import type { LeadList, LeadListAdded, LeadListRemoved } from '@app/contracts/resources/list';
import { SUBJECTS } from '@app/contracts/subjects';
import { ActingContext, AdminContext } from '../admin-context';
import { commaList, required } from '../args';
import { AdminCommand } from './command';

/** The workspace of a list (the commands name only the list), then its owner's context. */
async function contextOfList(admin: AdminContext, flags: Record<string, string>): Promise<ActingContext> {
  if (flags.workspace) return admin.contextFor(flags.workspace);
  const probe = { workspace_id: '', key_id: 'admin-cli', livemode: true } as RequestContext;
  const { workspace_id } = await admin.ask<{ workspace_id: string }>(SUBJECTS.crm.listsOwner, probe, { id: required(flags, 'list') } satisfies ListIdRequest);
  return admin.contextFor(workspace_id);
}

const membership = (name: string, subject: string, summary: string, example: string): AdminCommand => ({
  name,
  summary,
  example,
  usage: '--list <list_id> --lead <lead_id>[,<lead_id>…] [--lead <lead_id> …] [--workspace <ws_id>]',
  flags: ['list', 'lead', 'workspace'],
  repeatable: ['lead'],
  async run(admin, flags) {
    const body: ListMembersRequest = { list_id: required(flags, 'list'), lead_ids: commaList(flags, 'lead') };
    return admin.ask<LeadListAdded | LeadListRemoved>(subject, await contextOfList(admin, flags), body);
  },
});

export const listCommands: AdminCommand[] = [
  {
    name: 'list:create',
    summary: 'A named list of leads in a workspace, for exports filtered by list_id (asks crm)',
    example: 'list:create --workspace ws_... --name "Q3 conference"',
    usage: '--workspace <ws_id> --name <n>',
    flags: ['workspace', 'name'],
    async run(admin, flags) {
      const ctx = await admin.contextFor(required(flags, 'workspace'));
      return admin.ask<LeadList>(SUBJECTS.crm.listsCreate, ctx, { name: required(flags, 'name') } satisfies CreateListRequest);
    },
  },
  membership('list:add', SUBJECTS.crm.listsAddLeads, "Adds leads of the list's workspace to it; the list with its member count (asks crm)", 'list:add --list list_... --lead lead_...,lead_...'),
  membership('list:remove', SUBJECTS.crm.listsRemoveLeads, 'Takes leads out of a list; the list with its member count (asks crm)', 'list:remove --list list_... --lead lead_...'),
];
