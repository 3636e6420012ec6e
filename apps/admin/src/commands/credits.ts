import { CREDIT_POOLS } from '@app/contracts/enums';
import type { CreditBalance, GrantCreditsRequest } from '@app/contracts/resources/credits';
import { SUBJECTS } from '@app/contracts/subjects';
import { oneOf, required } from '../args';
import { AdminCommand } from './command';

export const creditCommands: AdminCommand[] = [
  {
    name: 'credits:grant',
    usage: '--workspace <ws_id> --pool plan|pack --amount <n> [--reason <r>]',
    summary: 'Adds credits to the plan pool (expires at renewal) or the pack pool (kept); the new balance (asks billing)',
    example: 'credits:grant --workspace ws_... --pool pack --amount 500 --reason "welcome pack"',
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
    summary: "Expires the rest of the plan pool and grants the plan's monthly credits (asks billing)",
    example: 'credits:renew --workspace ws_...',
    flags: ['workspace'],
    async run(admin, flags) {
      const ctx = await admin.contextFor(required(flags, 'workspace'));
      return admin.ask<CreditBalance>(SUBJECTS.billing.creditsRenew, ctx, {});
    },
  },
];
