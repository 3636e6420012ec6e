import { Controller } from '@nestjs/common';
import { CreateSuppressionRequest, ListSuppressionsRequest, RequestContext, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { SuppressionsService } from './suppressions.service';

/** NATS request-reply handlers of the suppression list. */
@Controller()
export class SuppressionsController {
  constructor(private readonly suppressions: SuppressionsService) {}

  @Rpc(SUBJECTS.sequences.suppressionsList)
  list(ctx: RequestContext, body: ListSuppressionsRequest) {
    return this.suppressions.list(ctx, body);
  }

  @Rpc(SUBJECTS.sequences.suppressionsCreate)
  create(ctx: RequestContext, body: CreateSuppressionRequest) {
    return this.suppressions.add(ctx, body);
  }
}
