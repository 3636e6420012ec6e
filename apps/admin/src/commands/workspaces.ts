import { KEY_MODES, LENSES, Lens, MEMBER_ROLES, PLANS } from '@app/contracts';
import { nonNegativeInt, oneOf, required } from '../args';
import { AdminCommand } from './command';

export const workspaceCommands: AdminCommand[] = [
  {
    name: 'workspace:create',
    usage: `--name <n> [--plan free|starter|growth|agency] [--lenses leads,investors,researchers,grants]
                   [--plan-credits <n>] [--pack-credits <n>]`,
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
    flags: ['workspace', 'role'],
    run: (admin, flags) => admin.workspaces.addMember(required(flags, 'workspace'), oneOf('role', required(flags, 'role'), MEMBER_ROLES)),
  },
  {
    name: 'key:create',
    usage: '--workspace <ws_id> --mode live|test [--name <n>] [--member <usr_id>]',
    flags: ['workspace', 'mode', 'name', 'member'],
    run: (admin, flags) =>
      admin.workspaces.createKey(required(flags, 'workspace'), oneOf('mode', required(flags, 'mode'), KEY_MODES), flags.name ?? null, flags.member),
  },
  {
    name: 'key:revoke',
    usage: '--key <key_id>',
    flags: ['key'],
    async run(admin, flags) {
      const result = await admin.workspaces.revokeKey(required(flags, 'key'));
      await admin.announceKeyChange();
      return result;
    },
  },
];
