import { mailOutboxDir, readOutbox } from '@app/platform/mail-outbox';
import { nonNegativeInt, UsageError } from '../args';
import { AdminCommand } from './command';

const MAX_LIMIT = 100;

export const mailCommands: AdminCommand[] = [
  {
    name: 'mail:outbox',
    usage: '[--to <address>] [--limit <n>]',
    summary:
      "What npm start's local mail outbox took (the opt-out portal's confirmation links among it), newest first, with each mail's links; " +
      'reads MAIL_OUTBOX_DIR, else .data/mail/outbox (no service asked)',
    example: 'mail:outbox --to pat@example.com --limit 1',
    flags: ['to', 'limit'],
    async run(_admin, flags) {
      const limit = nonNegativeInt('limit', flags.limit, 10);
      if (limit < 1 || limit > MAX_LIMIT) throw new UsageError(`--limit must be from 1 to ${MAX_LIMIT}`);
      if (flags.to !== undefined && !flags.to.includes('@')) throw new UsageError('--to must be an email address');
      return { data: readOutbox(mailOutboxDir(), { to: flags.to, limit }) };
    },
  },
];
