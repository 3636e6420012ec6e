import { Controller } from '@nestjs/common';
import { CreateNoteRequest, RequestContext, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { NotesService } from './notes.service';

/** NATS request-reply handler of crm.notes.create (the application side writes notes; the API shows none). */
@Controller()
export class NotesController {
  constructor(private readonly notes: NotesService) {}

  @Rpc(SUBJECTS.crm.notesCreate)
  create(ctx: RequestContext, body: CreateNoteRequest) {
    return this.notes.create(ctx, body);
  }
}
