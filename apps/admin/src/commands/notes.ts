import type { CreateNoteRequest } from '@app/contracts/dto/task.dto';
import type { Note } from '@app/contracts/resources/task';
import { SUBJECTS } from '@app/contracts/subjects';
import { required } from '../args';
import { AdminCommand } from './command';

export const noteCommands: AdminCommand[] = [
  {
    name: 'note:add',
    usage: '--workspace <ws_id> --lead <lead_id> --body <text> [--author <usr_id>]',
    summary: 'A note on a lead, by the author given, else the owner (asks crm)',
    example: 'note:add --workspace ws_... --lead lead_... --body "Called, follow up in May"',
    flags: ['workspace', 'lead', 'body', 'author'],
    async run(admin, flags) {
      const ctx = await admin.contextFor(required(flags, 'workspace'), flags.author);
      return admin.ask<Note>(SUBJECTS.crm.notesCreate, ctx, { lead_id: required(flags, 'lead'), body: required(flags, 'body') } satisfies CreateNoteRequest);
    },
  },
];
