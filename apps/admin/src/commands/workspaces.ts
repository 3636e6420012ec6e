import { KEY_MODES, LENSES, type Lens, MEMBER_ROLES, PLANS } from '@app/contracts/enums';
import type {
  AddedMember, AddMemberRequest, CreatedKey, CreatedWorkspace, CreateKeyRequest, CreateWorkspaceRequest, RevokedKey, RevokeKeyRequest,
} from '@app/contracts/resources/workspace';
import { SUBJECTS } from '@app/contracts/subjects';
import { nonNegativeInt, oneOf, required } from '../args';
import { AdminCommand } from './command';

export const workspaceCommands: AdminCommand[] = [
  {
    name: 'workspace:create',
    usage: `--name <n> [--plan free|starter|growth|agency] [--lenses leads,investors,researchers,grants]
                   [--plan-credits <n>] [--pack-credits <n>]`,
    summary: "A workspace and its owner (plan agency and all four lenses unless told), answered once billing has opened its credit account (credit_account: open; pending when billing did not answer: it opens it from workspace.created)",
    example: 'workspace:create --name Acme --plan growth --lenses leads,investors',
    flags: ['name', 'plan', 'lenses', 'plan-credits', 'pack-credits'],
    async run(admin, flags) {
      const lenses = (flags.lenses ?? LENSES.join(',')).split(',').map((l) => oneOf('lenses', l.trim(), LENSES)) as Lens[];
      const body: CreateWorkspaceRequest = {
        name: required(flags, 'name'),
        plan: oneOf('plan', flags.plan ?? 'agency', PLANS),
        lenses: [...new Set(lenses)],
        plan_credits: nonNegativeInt('plan-credits', flags['plan-credits'], 0),
        pack_credits: nonNegativeInt('pack-credits', flags['pack-credits'], 0),
      };
      return admin.askGateway<CreatedWorkspace>(SUBJECTS.gateway.workspacesCreate, body);
    },
  },
  {
    name: 'member:add',
    usage: '--workspace <ws_id> --role owner|admin|member',
    summary: 'A member of a workspace (usr_...), for keys that act as that member',
    example: 'member:add --workspace ws_... --role member',
    flags: ['workspace', 'role'],
    run: (admin, flags) =>
      admin.askGateway<AddedMember>(SUBJECTS.gateway.membersAdd, {
        workspace_id: required(flags, 'workspace'),
        role: oneOf('role', required(flags, 'role'), MEMBER_ROLES),
      } satisfies AddMemberRequest),
  },
  {
    name: 'key:create',
    usage: '--workspace <ws_id> --mode live|test [--name <n>] [--member <usr_id>]',
    summary: 'An API key (svc_live_... or svc_test_...) acting as the member given, else the owner; the key is shown this once',
    example: 'key:create --workspace ws_... --mode test --name "CRM sync"',
    flags: ['workspace', 'mode', 'name', 'member'],
    run: (admin, flags) =>
      admin.askGateway<CreatedKey>(SUBJECTS.gateway.keysCreate, {
        workspace_id: required(flags, 'workspace'),
        mode: oneOf('mode', required(flags, 'mode'), KEY_MODES),
        name: flags.name ?? null,
        ...(flags.member !== undefined ? { member_id: flags.member } : {}),
      } satisfies CreateKeyRequest),
  },
  {
    name: 'key:revoke',
    usage: '--key <key_id>',
    summary: 'Revokes a key; every gateway replica drops it from its cache at once when NATS answers',
    example: 'key:revoke --key key_...',
    flags: ['key'],
    run: (admin, flags) => admin.askGateway<RevokedKey>(SUBJECTS.gateway.keysRevoke, { key_id: required(flags, 'key') } satisfies RevokeKeyRequest),
  },
];
