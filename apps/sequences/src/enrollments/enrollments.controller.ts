import { Controller } from '@nestjs/common';
import { CreateEnrollmentsRequest, DeleteEnrollmentRequest, RequestContext, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { EnrollmentsService } from './enrollments.service';

/** NATS request-reply handlers of enrollments. */
@Controller()
export class EnrollmentsController {
  constructor(private readonly enrollments: EnrollmentsService) {}

  @Rpc(SUBJECTS.sequences.enrollmentsCreate)
  enroll(ctx: RequestContext, body: CreateEnrollmentsRequest) {
    return this.enrollments.enroll(ctx, body);
  }

  @Rpc(SUBJECTS.sequences.enrollmentsDelete)
  unenroll(ctx: RequestContext, body: DeleteEnrollmentRequest) {
    return this.enrollments.unenroll(ctx, body);
  }
}
