import { Controller } from '@nestjs/common';
import { RequestContext, SUBJECTS } from '@app/contracts';
import { Rpc } from '@app/platform';
import { IngestRequest, IngestService, SeedRequest } from './ingest.service';

/** The operator's NATS request-reply handlers that fill the entity index. */
@Controller()
export class IngestController {
  constructor(private readonly ingestion: IngestService) {}

  /** Generated entities `start .. start+count-1` (deterministic: re-seeding updates). */
  @Rpc(SUBJECTS.search.seed)
  seed(_ctx: RequestContext, body: SeedRequest) {
    return this.ingestion.seed(body);
  }

  /** Entities parsed by an ingestion connector, upserted by their source key. */
  @Rpc(SUBJECTS.search.ingest)
  ingest(_ctx: RequestContext, body: IngestRequest) {
    return this.ingestion.ingest(body);
  }
}
