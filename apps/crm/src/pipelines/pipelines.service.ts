import { Injectable } from '@nestjs/common';
import { ListEnvelope, ListPipelinesRequest, Pipeline, RequestContext } from '@app/contracts';
import { toListPage } from '@app/platform';
import { renderPipeline } from './pipeline.mapper';
import { PipelinesRepository } from './pipelines.repository';

@Injectable()
export class PipelinesService {
  constructor(private readonly pipelines: PipelinesRepository) {}

  /** The workspace's pipelines with their stages; a workspace listing before its first lead gets the templates first. */
  async list(ctx: RequestContext, query: ListPipelinesRequest): Promise<ListEnvelope<Pipeline>> {
    await this.pipelines.ensureProvisioned(ctx.workspace_id);
    const rows = await this.pipelines.list(ctx.workspace_id, query);
    return toListPage(rows.map(({ pipeline, stages }) => ({ id: pipeline.id, pipeline, stages })), query.limit, renderPipeline);
  }
}
