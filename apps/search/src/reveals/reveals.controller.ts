import { Controller } from '@nestjs/common';
import { RequestContext, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { RevealsService } from './reveals.service';

/** NATS request-reply handler of a reveal. */
@Controller()
export class RevealsController {
  constructor(private readonly reveals: RevealsService) {}

  @Rpc(SUBJECTS.search.revealsCreate)
  create(ctx: RequestContext, body: { entity_id: string }) {
    return this.reveals.create(ctx, body);
  }
}
