import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreateNoteRequest, RpcRequest, SUBJECTS } from '@app/contracts';
import { unpack } from '@app/platform';
import { NotesService } from './notes.service';

/** NATS request-reply handler of crm.notes.create (the application side writes notes; the API shows none). */
@Controller()
export class NotesController {
  constructor(private readonly notes: NotesService) {}

  @MessagePattern(SUBJECTS.crm.notesCreate)
  create(@Payload() message: RpcRequest<CreateNoteRequest>) {
    const { ctx, body } = unpack(message);
    return this.notes.create(ctx, body);
  }
}
