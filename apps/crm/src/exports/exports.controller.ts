import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreateExportDto, RequestContext, RpcRequest, SUBJECTS } from '@app/contracts';
import { Rpc, ServiceErrorFilter } from '@app/platform';
import { ExportsService } from './exports.service';

/** NATS request-reply handlers of the export subjects. */
@Controller()
export class ExportsController {
  constructor(private readonly exports: ExportsService) {}

  @Rpc(SUBJECTS.crm.exportsCreate)
  create(ctx: RequestContext, body: CreateExportDto) {
    return this.exports.create(ctx, body);
  }

  @Rpc(SUBJECTS.crm.exportsGet)
  get(ctx: RequestContext, body: { id: string }) {
    return this.exports.get(ctx, body.id);
  }

  /**
   * Asked by the gateway for a signed download link: no workspace (no API key), the signature
   * vouched, so not @Rpc, whose envelope check requires a workspace. Its failures are answered as
   * @Rpc's are (ServiceErrorFilter: a lost database connection is `service_unavailable`, a 503
   * with Retry-After at the gateway, not a 500).
   */
  @MessagePattern(SUBJECTS.crm.exportsFile)
  @UseFilters(new ServiceErrorFilter())
  file(@Payload() message: RpcRequest<{ id: string }>) {
    return this.exports.file(message?.body?.id);
  }
}
