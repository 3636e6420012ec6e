import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ListEnvelope, ListPipelinesRequest, Pipeline, RpcRequest, SUBJECTS } from '@app/contracts';
import { toListPage, unpack, withTransaction } from '@app/platform';
import { PipelinesRepository } from './pipelines.repository';

@Controller()
export class PipelinesController {
  constructor(private readonly pipelines: PipelinesRepository) {}

  @MessagePattern(SUBJECTS.crm.pipelinesList)
  async list(@Payload() message: RpcRequest<ListPipelinesRequest>): Promise<ListEnvelope<Pipeline>> {
    const { ctx, body } = unpack(message);
    await withTransaction(this.pipelines.pool, (tx) => this.pipelines.provision(tx, ctx.workspace_id));
    const rows = await this.pipelines.list(ctx.workspace_id, body);
    return toListPage(rows, body.limit, (row) => ({
      id: row.id,
      object: 'pipeline',
      name: row.name,
      lens: row.lens,
      is_default: row.is_default,
      stages: row.stages ?? [],
      created_at: row.created_at.toISOString(),
    }));
  }
}
