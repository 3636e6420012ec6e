import { CreateNoteRequest, Note, SUBJECTS } from '@app/contracts';
import { required } from '../args';
import { AdminCommand } from './command';

export const noteCommands: AdminCommand[] = [
  {
    name: 'note:add',
    usage: '--workspace <ws_id> --lead <lead_id> --body <text> [--author <usr_id>]',
    flags: ['workspace', 'lead', 'body', 'author'],
    async run(admin, flags) {
      const ctx = await admin.contextFor(required(flags, 'workspace'), flags.author);
      return admin.ask<Note>(SUBJECTS.crm.notesCreate, ctx, { lead_id: required(flags, 'lead'), body: required(flags, 'body') } satisfies CreateNoteRequest);
    },
  },
];
