import { Controller } from '@nestjs/common';
import { OpportunityProfile, RequestContext, SearchRequest, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { SearchService } from './search.service';

/** NATS request-reply handlers of a search page and the workspace's opportunity profile. */
@Controller()
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Rpc(SUBJECTS.search.query)
  query(ctx: RequestContext, body: SearchRequest) {
    return this.search.search(ctx, body);
  }

  @Rpc(SUBJECTS.search.profileSet)
  profile(ctx: RequestContext, body: OpportunityProfile) {
    return this.search.setProfile(ctx, body);
  }
}
