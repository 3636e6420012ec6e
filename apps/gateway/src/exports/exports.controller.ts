import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { Export, ExportFile, RequestContext, SUBJECTS } from '@app/contracts';
import { CreateExportDto } from '@app/contracts/dto';
import { ExportLinkConfig, FILE_STORAGE, FileNotFoundError, FileStorage, rootLogger, verifyExportLink } from '@app/platform';
import { AuditLogStore } from '../audit/audit-log.store';
import { ApiError } from '../http/api-error';
import { Ctx } from '../http/request-context.decorator';
import { LensOnPlan } from '../http/lens.guard';
import { RpcClient } from '../rpc/rpc.client';
import { Public } from '../http/public.decorator';
import { requestLogFields } from '../http/request-log';
import { Operation } from '../openapi/operation.decorator';

export const EXPORT_LINKS = Symbol('EXPORT_LINKS');

const CONTENT_TYPES = { csv: 'text/csv; charset=utf-8', json: 'application/json' } as const;

@Controller('api/v1/exports')
export class ExportsController {
  private readonly log = rootLogger('gateway');

  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: AuditLogStore,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
    @Inject(EXPORT_LINKS) private readonly links: ExportLinkConfig,
  ) {}

  /** Queues an export (202) and writes it to the audit log. */
  @Post()
  @HttpCode(202)
  @Operation({
    summary: 'Start an export',
    description: 'Queues a background CSV or JSON export of leads (only revealed contact fields). Recorded in the audit log.',
    response: 'Export',
    status: 202,
    errors: [400, 401, 403, 409, 429, 500],
    idempotent: true,
  })
  @LensOnPlan('body', 'filter.lens')
  async create(@Ctx() ctx: RequestContext, @Body() input: CreateExportDto, @Req() request: FastifyRequest): Promise<Export> {
    const created = await this.rpc.send<Export>(SUBJECTS.crm.exportsCreate, ctx, input);
    await this.audit.record({
      workspace_id: ctx.workspace_id,
      key_id: ctx.key_id,
      member_id: ctx.member_id,
      action: 'export.created',
      object_id: created.id,
      details: { format: created.format, filter: created.filter, livemode: created.livemode },
      request_id: ctx.request_id,
      client_ip: request.ip,
    });
    return created;
  }

  @Get(':id')
  @Operation({
    summary: 'Retrieve an export',
    description: '`download_url` is set once status is `completed` and works for 24 hours.',
    response: 'Export',
    errors: [401, 403, 404, 429, 500],
  })
  get(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<Export> {
    return this.rpc.send(SUBJECTS.crm.exportsGet, ctx, { id });
  }

  /**
   * A signed download link. No API key: the signature is the credential (the pipeline lets
   * this route through, rate limited per client address). An expired, altered or unknown link
   * is 404, the same for all so a link reveals nothing; a valid one streams the file.
   */
  @Get(':id/download')
  @Public()
  @Operation({
    summary: 'Download an export file (signed link)',
    description:
      'The `download_url` of a completed export. The signature is the credential: no API key is needed; rate limited per client ' +
      'address. An expired, altered or unknown link is 404.',
    response: 'file',
    errors: [404, 429, 500],
    media: {
      'text/csv': { schema: { type: 'string' } },
      'application/json': { schema: { type: 'array', items: { type: 'object', additionalProperties: true } } },
    },
  })
  async download(
    @Param('id') id: string, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply,
  ): Promise<void> {
    const notFound = () => new ApiError('not_found', 'This download link is invalid or has expired; fetch the export again for a fresh link');
    if (!verifyExportLink(id, query.expires, query.signature, this.links.signingSecret)) throw notFound();
    // A signed link carries no workspace: crm answers for the export id alone.
    const ctx = { request_id: request.id } as RequestContext;
    let file: ExportFile;
    try {
      file = await this.rpc.send<ExportFile>(SUBJECTS.crm.exportsFile, ctx, { id });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'not_found') throw notFound();
      throw err;
    }
    let opened: Awaited<ReturnType<FileStorage['openReadStream']>>;
    try {
      opened = await this.storage.openReadStream(file.file_key);
    } catch (err) {
      if (err instanceof FileNotFoundError) throw notFound();
      throw err;
    }
    await this.audit
      .record({
        workspace_id: file.workspace_id, key_id: null, member_id: null, action: 'export.downloaded', object_id: file.id,
        details: { format: file.format }, request_id: request.id, client_ip: request.ip,
      })
      .catch((err: Error) => this.log.warn({ ...requestLogFields(request), err: err.message }, 'audit of a download failed'));
    opened.stream.on('error', (err) => this.log.error({ ...requestLogFields(request), export_id: id, err: err.message }, 'export download broke off'));
    reply
      .status(200)
      .header('Content-Type', CONTENT_TYPES[file.format])
      .header('Content-Disposition', `attachment; filename="${file.id}.${file.format}"`)
      .header('Cache-Control', 'private, no-store');
    if (opened.size !== undefined) reply.header('Content-Length', String(opened.size));
    await reply.send(opened.stream);
  }
}
