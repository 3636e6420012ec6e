import { KEY_MODES, LENSES, Lens, MEMBER_ROLES, PLANS } from '@app/contracts';
import { nonNegativeInt, oneOf, required } from '../args';
import { AdminCommand } from './command';

export const workspaceCommands: AdminCommand[] = [
  {
    name: 'workspace:create',
    usage: `--name <n> [--plan free|starter|growth|agency] [--lenses leads,investors,researchers,grants]
                   [--plan-credits <n>] [--pack-credits <n>]`,
    summary: 'A workspace and its owner (plan agency and all four lenses unless told); billing opens its credit accounts from workspace.created',
    example: 'workspace:create --name Acme --plan growth --lenses leads,investors',
    flags: ['name', 'plan', 'lenses', 'plan-credits', 'pack-credits'],
    async run(admin, flags) {
      const lenses = (flags.lenses ?? LENSES.join(',')).split(',').map((l) => oneOf('lenses', l.trim(), LENSES)) as Lens[];
      const result = await admin.workspaces.createWorkspace({
        name: required(flags, 'name'),
        plan: oneOf('plan', flags.plan ?? 'agency', PLANS),
        lenses: [...new Set(lenses)],
        planCredits: nonNegativeInt('plan-credits', flags['plan-credits'], 0),
        packCredits: nonNegativeInt('pack-credits', flags['pack-credits'], 0),
      });
      await admin.publishPending();
      return result;
    },
  },
  {
    name: 'member:add',
    usage: '--workspace <ws_id> --role owner|admin|member',
    summary: 'A member of a workspace (usr_...), for keys that act as that member',
    example: 'member:add --workspace ws_... --role member',
    flags: ['workspace', 'role'],
    run: (admin, flags) => admin.workspaces.addMember(required(flags, 'workspace'), oneOf('role', required(flags, 'role'), MEMBER_ROLES)),
  },
  {
    name: 'key:create',
    usage: '--workspace <ws_id> --mode live|test [--name <n>] [--member <usr_id>]',
    summary: 'An API key (svc_live_... or svc_test_...) acting as the member given, else the owner; the key is shown this once',
    example: 'key:create --workspace ws_... --mode test --name "CRM sync"',
    flags: ['workspace', 'mode', 'name', 'member'],
    run: (admin, flags) =>
      admin.workspaces.createKey(required(flags, 'workspace'), oneOf('mode', required(flags, 'mode'), KEY_MODES), flags.name ?? null, flags.member),
  },
  {
    name: 'key:revoke',
    usage: '--key <key_id>',
    summary: 'Revokes a key; every gateway replica drops it from its cache at once when NATS answers',
    example: 'key:revoke --key key_...',
    flags: ['key'],
    async run(admin, flags) {
      const result = await admin.workspaces.revokeKey(required(flags, 'key'));
      await admin.announceKeyChange();
      return result;
    },
  },
];
