import { CREDIT_POOLS, CreditBalance, GrantCreditsRequest, SUBJECTS } from '@app/contracts';
import { oneOf, required } from '../args';
import { AdminCommand } from './command';

export const creditCommands: AdminCommand[] = [
  {
    name: 'credits:grant',
    usage: '--workspace <ws_id> --pool plan|pack --amount <n> [--reason <r>]',
    flags: ['workspace', 'pool', 'amount', 'reason'],
    async run(admin, flags) {
      const ctx = await admin.contextFor(required(flags, 'workspace'));
      const amount = Number(required(flags, 'amount'));
      const body: GrantCreditsRequest = { pool: oneOf('pool', required(flags, 'pool'), CREDIT_POOLS), amount, reason: flags.reason };
      return admin.ask<CreditBalance>(SUBJECTS.billing.creditsGrant, ctx, body);
    },
  },
  {
    name: 'credits:renew',
    usage: '--workspace <ws_id>',
    flags: ['workspace'],
    async run(admin, flags) {
      const ctx = await admin.contextFor(required(flags, 'workspace'));
      return admin.ask<CreditBalance>(SUBJECTS.billing.creditsRenew, ctx, {});
    },
  },
];
