import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { DeletedEnvelope, Lead, ListEnvelope, RequestContext, SUBJECTS } from '@app/contracts';
import { CreateLeadDto, ListLeadsQueryDto, MoveStageDto, UpdateLeadDto } from '@app/contracts/dto';
import { LensOnPlan } from '../http/lens.guard';
import { MemberOf } from '../http/member.guard';
import { Ctx } from '../http/request-context.decorator';
import { pageOf } from '../http/page-query';
import { Operation } from '../openapi/operation.decorator';
import { Forwarded, RpcClient } from '../rpc/rpc.client';

@Controller('api/v1/leads')
export class LeadsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Operation({
    summary: 'List leads',
    description: 'Newest first. Entries carry no `sources`.',
    response: 'list:Lead',
    errors: [400, 401, 403, 429, 500],
  })
  @LensOnPlan('query', 'lens')
  list(@Ctx() ctx: RequestContext, @Query() filters: ListLeadsQueryDto): Promise<Forwarded<ListEnvelope<Lead>>> {
    return this.rpc.forward(SUBJECTS.crm.leadsList, ctx, pageOf(filters));
  }

  @Post()
  @HttpCode(201)
  @Operation({
    summary: 'Create a lead',
    description:
      'Adds a lead the caller found; no credits charged. The email is checked against the workspace suppression list and the ' +
      'global opt-out list; suppressed addresses are saved but cannot be enrolled.',
    response: 'Lead',
    status: 201,
    errors: [400, 401, 403, 409, 429, 500],
    idempotent: true,
  })
  @LensOnPlan('body', 'lens')
  create(@Ctx() ctx: RequestContext, @Body() lead: CreateLeadDto): Promise<Forwarded<Lead>> {
    // crm's JSON bytes to the response, as a read's: not parsed and serialised again
    return this.rpc.forward(SUBJECTS.crm.leadsCreate, ctx, lead);
  }

  @Get(':id')
  @Operation({ summary: 'Retrieve a lead', description: 'With `sources`.', response: 'Lead', errors: [401, 403, 404, 429, 500] })
  get(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<Forwarded<Lead>> {
    return this.rpc.forward(SUBJECTS.crm.leadsGet, ctx, { id });
  }

  @Patch(':id')
  @Operation({
    summary: 'Update a lead',
    description: 'Changes only the fields sent; emits `lead.updated`.',
    response: 'Lead',
    errors: [400, 401, 403, 404, 409, 429, 500],
  })
  @MemberOf('owner_id')
  update(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() changes: UpdateLeadDto): Promise<Lead> {
    return this.rpc.send(SUBJECTS.crm.leadsUpdate, ctx, { id, changes });
  }

  /** Moves the lead to a stage taken from GET /pipelines; emits lead.stage_changed. */
  @Put(':id/stage')
  @Operation({
    summary: 'Move a lead to a pipeline stage',
    description: 'Moves the lead to a stage ID taken from GET /pipelines; emits `lead.stage_changed`.',
    response: 'Lead',
    errors: [400, 401, 403, 404, 409, 429, 500],
  })
  moveStage(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() { stage_id }: MoveStageDto): Promise<Lead> {
    return this.rpc.send(SUBJECTS.crm.leadsMoveStage, ctx, { id, stage_id });
  }

  @Delete(':id')
  @Operation({
    summary: 'Delete a lead',
    description: 'Permanently deletes the lead, its notes, tasks and enrollments; active sequences stop for it.',
    response: 'DeletedObject',
    errors: [401, 403, 404, 429, 500],
  })
  delete(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<DeletedEnvelope> {
    return this.rpc.send(SUBJECTS.crm.leadsDelete, ctx, { id });
  }
}
