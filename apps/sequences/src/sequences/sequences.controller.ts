import { Controller } from '@nestjs/common';
import { CreateSequenceRequest, ListSequencesRequest, RequestContext, SequenceIdRequest, SetCountryRuleRequest, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { SequencesService } from './sequences.service';

/** NATS request-reply handlers of sequences and the workspace's country rules. */
@Controller()
export class SequencesController {
  constructor(private readonly sequences: SequencesService) {}

  @Rpc(SUBJECTS.sequences.list)
  list(ctx: RequestContext, body: ListSequencesRequest) {
    return this.sequences.list(ctx, body);
  }

  @Rpc(SUBJECTS.sequences.get)
  get(ctx: RequestContext, body: SequenceIdRequest) {
    return this.sequences.get(ctx, body.id);
  }

  @Rpc(SUBJECTS.sequences.create)
  create(ctx: RequestContext, body: CreateSequenceRequest) {
    return this.sequences.create(ctx, body);
  }

  /** Admin CLI: which workspace a sequence belongs to (the commands name only the sequence). */
  @Rpc(SUBJECTS.sequences.owner)
  owner(ctx: RequestContext, body: SequenceIdRequest) {
    return this.sequences.owner(ctx, body?.id);
  }

  @Rpc(SUBJECTS.sequences.launch)
  launch(ctx: RequestContext, body: SequenceIdRequest) {
    return this.sequences.launch(ctx, body.id);
  }

  @Rpc(SUBJECTS.sequences.pause)
  pause(ctx: RequestContext, body: SequenceIdRequest) {
    return this.sequences.pause(ctx, body.id);
  }

  @Rpc(SUBJECTS.sequences.resume)
  resume(ctx: RequestContext, body: SequenceIdRequest) {
    return this.sequences.resume(ctx, body.id);
  }

  @Rpc(SUBJECTS.sequences.countriesSet)
  setCountry(ctx: RequestContext, body: SetCountryRuleRequest) {
    return this.sequences.setCountryRule(ctx, body);
  }
}
