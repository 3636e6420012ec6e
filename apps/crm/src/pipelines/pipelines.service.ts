import { Injectable } from '@nestjs/common';
import { ListEnvelope, ListPipelinesRequest, Pipeline, RequestContext } from '@app/contracts';
import { toListPage, withTransaction } from '@app/platform';
import { PipelinesRepository } from './pipelines.repository';

@Injectable()
export class PipelinesService {
  constructor(private readonly pipelines: PipelinesRepository) {}

  /** The workspace's pipelines with their stages; a workspace listing before its first lead gets the templates first. */
  async list(ctx: RequestContext, query: ListPipelinesRequest): Promise<ListEnvelope<Pipeline>> {
    await withTransaction(this.pipelines.pool, (tx) => this.pipelines.provision(tx, ctx.workspace_id));
    const rows = await this.pipelines.list(ctx.workspace_id, query);
    return toListPage(rows, query.limit, (row) => ({
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
