import { Controller } from '@nestjs/common';
import { RequestContext, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { LeasesService } from './leases.service';

/** search.leases.settle: the gateway's GET /credits returns the workspace's leases before it reads the balance. */
@Controller()
export class LeasesController {
  constructor(private readonly leases: LeasesService) {}

  @Rpc(SUBJECTS.search.leasesSettle)
  settle(ctx: RequestContext) {
    return this.leases.settleWorkspace(ctx);
  }
}
