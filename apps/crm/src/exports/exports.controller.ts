import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreateExportDto, RpcRequest, SUBJECTS } from '@app/contracts';
import { unpack } from '@app/platform';
import { ExportsService } from './exports.service';

/** NATS request-reply handlers of the export subjects. */
@Controller()
export class ExportsController {
  constructor(private readonly exports: ExportsService) {}

  @MessagePattern(SUBJECTS.crm.exportsCreate)
  create(@Payload() message: RpcRequest<CreateExportDto>) {
    const { ctx, body } = unpack(message);
    return this.exports.create(ctx, body);
  }

  @MessagePattern(SUBJECTS.crm.exportsGet)
  get(@Payload() message: RpcRequest<{ id: string }>) {
    const { ctx, body } = unpack(message);
    return this.exports.get(ctx, body.id);
  }

  /** Asked by the gateway for a signed download link: no workspace, the signature vouched. */
  @MessagePattern(SUBJECTS.crm.exportsFile)
  file(@Payload() message: RpcRequest<{ id: string }>) {
    return this.exports.file(message?.body?.id);
  }
}
