import { Inject, Injectable } from '@nestjs/common';
import { CreateExportDto, Export, ExportFile, ExportFilter, ID_PREFIX, RequestContext } from '@app/contracts';
import { DomainError, newId } from '@app/platform';
import { renderExport } from './export.mapper';
import { ExportWorker } from './export-worker';
import { EXPORTS_CONFIG, ExportsConfig } from './exports.config';
import { ExportsRepository } from './exports.repository';

/** Only the filter fields that were sent, in the spec's order. */
function cleanFilter(filter: CreateExportDto['filter']): ExportFilter {
  const out: ExportFilter = {};
  if (!filter) return out;
  for (const key of ['lens', 'tag', 'pipeline_id', 'stage_id', 'list_id', 'updated_since'] as const) {
    if (filter[key] !== undefined && filter[key] !== null) (out as Record<string, unknown>)[key] = filter[key];
  }
  return out;
}

@Injectable()
export class ExportsService {
  constructor(
    private readonly exports: ExportsRepository,
    private readonly worker: ExportWorker,
    @Inject(EXPORTS_CONFIG) private readonly config: ExportsConfig,
  ) {}

  /**
   * Queues an export. With an Idempotency-Key, a retry whose outcome the gateway never learned
   * (it timed out) returns the export that request queued instead of queueing a second one.
   */
  async create(ctx: RequestContext, body: CreateExportDto): Promise<Export> {
    const { row, created } = await this.exports.insert({
      id: newId(ID_PREFIX.export),
      workspace_id: ctx.workspace_id,
      livemode: ctx.livemode,
      format: body.format,
      filter: cleanFilter(body.filter),
      request_id: ctx.request_id,
      idempotency_key: ctx.idempotency?.key ?? null,
      request_hash: ctx.idempotency?.request_hash ?? null,
    });
    if (!created) {
      const earlier = row as typeof row & { request_hash?: string };
      if (earlier.request_hash !== ctx.idempotency?.request_hash) {
        throw DomainError.conflict('This Idempotency-Key was already used with a different request', 'Idempotency-Key');
      }
    } else {
      this.worker.wake();
    }
    return renderExport(row, this.config.link);
  }

  async get(ctx: RequestContext, id: string): Promise<Export> {
    const row = await this.exports.findById(ctx.workspace_id, id);
    if (!row) throw DomainError.notFound('export', id, 'id');
    return renderExport(row, this.config.link);
  }

  /** The file behind a signed link (the gateway checked the signature); 404 unless completed. */
  async file(id: string): Promise<ExportFile> {
    const row = typeof id === 'string' ? await this.exports.findFile(id) : undefined;
    if (!row || !row.file_key) throw DomainError.notFound('export', String(id));
    return { id: row.id, workspace_id: row.workspace_id, format: row.format, file_key: row.file_key };
  }
}
