import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiQuery } from '@nestjs/swagger';
import {
  CreateEnrollmentsDto, CreateEnrollmentsRequest, CreateSuppressionDto, CreateSuppressionRequest, DeleteEnrollmentRequest, Enrollment,
  EnrollmentResult, ListEnvelope, ListSequencesQueryDto, ListSuppressionsQueryDto, RequestContext, Sequence, SUBJECTS, Suppression,
} from '@app/contracts';
import { ApiError } from '../http/api-error';
import { Ctx } from '../http/request-context.decorator';
import { pageOf } from '../http/page-query';
import { assertIdParam, validateInput } from '../http/validation';
import { RpcClient } from '../rpc/rpc.client';

/** Sequences are read here and written in the application (admin CLI); enrollments are managed here. */
@Controller('api/v1/sequences')
export class SequencesController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiQuery({ type: ListSequencesQueryDto })
  list(@Ctx() ctx: RequestContext, @Query() query: unknown): Promise<ListEnvelope<Sequence>> {
    const filters = validateInput(ListSequencesQueryDto, query, 'query');
    return this.rpc.send(SUBJECTS.sequences.list, ctx, pageOf(filters));
  }

  @Get(':id')
  get(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<Sequence> {
    assertIdParam(id, 'sequence');
    return this.rpc.send(SUBJECTS.sequences.get, ctx, { id });
  }

  /** 201 EnrollmentResult even when every lead is skipped; a test key enrolls nothing. */
  @Post(':id/enrollments')
  @ApiBody({ type: CreateEnrollmentsDto })
  @HttpCode(201)
  enroll(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() body: unknown): Promise<EnrollmentResult> {
    assertIdParam(id, 'sequence');
    const { lead_ids } = validateInput(CreateEnrollmentsDto, body, 'body');
    return this.rpc.send(SUBJECTS.sequences.enrollmentsCreate, ctx, { sequence_id: id, lead_ids } satisfies CreateEnrollmentsRequest);
  }

  @Delete(':id/enrollments/:lead_id')
  unenroll(@Ctx() ctx: RequestContext, @Param('id') id: string, @Param('lead_id') leadId: string): Promise<Enrollment> {
    assertIdParam(id, 'sequence');
    assertIdParam(leadId, 'lead');
    return this.rpc.send(SUBJECTS.sequences.enrollmentsDelete, ctx, { sequence_id: id, lead_id: leadId } satisfies DeleteEnrollmentRequest);
  }
}

@Controller('api/v1/suppressions')
export class SuppressionsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiQuery({ type: ListSuppressionsQueryDto })
  list(@Ctx() ctx: RequestContext, @Query() query: unknown): Promise<ListEnvelope<Suppression>> {
    const filters = validateInput(ListSuppressionsQueryDto, query, 'query');
    return this.rpc.send(SUBJECTS.sequences.suppressionsList, ctx, pageOf(filters));
  }

  /** Exactly one of `email` and `domain`, else 400; takes effect at once. */
  @Post()
  @ApiBody({ type: CreateSuppressionDto })
  @HttpCode(201)
  create(@Ctx() ctx: RequestContext, @Body() body: unknown): Promise<Suppression> {
    const input = validateInput(CreateSuppressionDto, body, 'body');
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
