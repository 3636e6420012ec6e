import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CreateEnrollmentsRequest, CreateSuppressionRequest, DeleteEnrollmentRequest, Enrollment, EnrollmentResult, ListEnvelope, RequestContext, Sequence, SUBJECTS, Suppression } from '@app/contracts';
import { CreateEnrollmentsDto, CreateSuppressionDto, ListSequencesQueryDto, ListSuppressionsQueryDto } from '@app/contracts/dto';
import { ApiError } from '../http/api-error';
import { Ctx } from '../http/request-context.decorator';
import { pageOf } from '../http/page-query';
import { Operation } from '../openapi/operation.decorator';
import { RpcClient } from '../rpc/rpc.client';

/** Sequences are read here and written in the application (admin CLI); enrollments are managed here. */
@Controller('api/v1/sequences')
export class SequencesController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Operation({ summary: 'List sequences', response: 'list:Sequence', errors: [400, 401, 403, 429, 500] })
  list(@Ctx() ctx: RequestContext, @Query() filters: ListSequencesQueryDto): Promise<ListEnvelope<Sequence>> {
    return this.rpc.send(SUBJECTS.sequences.list, ctx, pageOf(filters));
  }

  @Get(':id')
  @Operation({ summary: 'Retrieve a sequence', response: 'Sequence', errors: [401, 403, 404, 429, 500] })
  get(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<Sequence> {
    return this.rpc.send(SUBJECTS.sequences.get, ctx, { id });
  }

  /** 201 EnrollmentResult even when every lead is skipped; a test key enrolls nothing. */
  @Post(':id/enrollments')
  @HttpCode(201)
  @Operation({
    summary: 'Enroll leads in a sequence',
    description:
      'Each lead is checked as in the application; leads that fail are listed in `skipped` with a reason. On a test key nothing ' +
      'is enrolled and the response shows what would happen. 201 even when some leads are skipped.',
    response: 'EnrollmentResult',
    status: 201,
    errors: [400, 401, 403, 404, 409, 429, 500],
    idempotent: true,
  })
  enroll(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() { lead_ids }: CreateEnrollmentsDto): Promise<EnrollmentResult> {
    return this.rpc.send(SUBJECTS.sequences.enrollmentsCreate, ctx, { sequence_id: id, lead_ids } satisfies CreateEnrollmentsRequest);
  }

  @Delete(':id/enrollments/:lead_id')
  @Operation({
    summary: 'Stop a sequence for one lead',
    description: 'The enrollment becomes `stopped` with stop_reason `removed`; the lead stays in the CRM.',
    response: 'Enrollment',
    errors: [401, 403, 404, 429, 500],
  })
  unenroll(@Ctx() ctx: RequestContext, @Param('id') id: string, @Param('lead_id') leadId: string): Promise<Enrollment> {
    return this.rpc.send(SUBJECTS.sequences.enrollmentsDelete, ctx, { sequence_id: id, lead_id: leadId } satisfies DeleteEnrollmentRequest);
  }
}

@Controller('api/v1/suppressions')
export class SuppressionsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Operation({ summary: 'List suppressions', description: 'Workspace and global entries.', response: 'list:Suppression', errors: [400, 401, 403, 429, 500] })
  list(@Ctx() ctx: RequestContext, @Query() filters: ListSuppressionsQueryDto): Promise<ListEnvelope<Suppression>> {
    return this.rpc.send(SUBJECTS.sequences.suppressionsList, ctx, pageOf(filters));
  }

  /** Exactly one of `email` and `domain`, else 400; takes effect at once. */
  @Post()
  @HttpCode(201)
  @Operation({
    summary: 'Create a suppression',
    description:
      'Send exactly one of `email` and `domain`. Takes effect immediately: queued emails are cancelled and active enrollments ' +
      'stop. Emits `unsubscribe.created` when `reason` is `unsubscribe`.',
    response: 'Suppression',
    status: 201,
    errors: [400, 401, 403, 409, 429, 500],
    idempotent: true,
    bodyRule: { oneOf: [{ required: ['email'] }, { required: ['domain'] }], description: 'Exactly one of `email` and `domain`.' },
  })
  create(@Ctx() ctx: RequestContext, @Body() input: CreateSuppressionDto): Promise<Suppression> {
    const hasEmail = input.email !== undefined && input.email !== null;
    const hasDomain = input.domain !== undefined && input.domain !== null;
    if (hasEmail === hasDomain) {
      throw ApiError.invalid(hasEmail ? 'domain' : 'email', 'Send exactly one of email and domain');
    }
    const request: CreateSuppressionRequest = hasEmail
      ? { type: 'email', value: input.email as string, reason: input.reason ?? 'manual' }
      : { type: 'domain', value: input.domain as string, reason: input.reason ?? 'manual' };
    return this.rpc.send(SUBJECTS.sequences.suppressionsCreate, ctx, request);
  }
}
