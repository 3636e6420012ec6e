import { Controller } from '@nestjs/common';
import { CreateMailboxRequest, RequestContext, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { MailboxesService } from './mailboxes.service';

/** NATS request-reply handlers of mailboxes. */
@Controller()
export class MailboxesController {
  constructor(private readonly mailboxes: MailboxesService) {}

  @Rpc(SUBJECTS.sequences.mailboxesCreate)
  create(ctx: RequestContext, body: CreateMailboxRequest) {
    return this.mailboxes.create(ctx, body);
  }
}
