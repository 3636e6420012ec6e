import { Controller } from '@nestjs/common';
import { ListPipelinesRequest, RequestContext, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { PipelinesService } from './pipelines.service';

/** NATS request-reply handlers of the pipeline subjects. */
@Controller()
export class PipelinesController {
  constructor(private readonly pipelines: PipelinesService) {}

  @Rpc(SUBJECTS.crm.pipelinesList)
  list(ctx: RequestContext, body: ListPipelinesRequest) {
    return this.pipelines.list(ctx, body);
  }
}
