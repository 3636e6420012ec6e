import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiQuery } from '@nestjs/swagger';
import {
  CreateLeadDto, DeletedEnvelope, Lead, ListEnvelope, ListLeadsQueryDto, MoveStageDto, RequestContext, SUBJECTS, UpdateLeadDto,
} from '@app/contracts';
import { ApiKeysRepository } from '../auth/api-keys.repository';
import { ApiError } from '../http/api-error';
import { Ctx } from '../http/request-context.decorator';
import { pageOf } from '../http/page-query';
import { assertIdParam, assertLensAllowed, validateInput } from '../http/validation';
import { Forwarded, RpcClient } from '../rpc/rpc.client';

@Controller('api/v1/leads')
export class LeadsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly keys: ApiKeysRepository,
  ) {}

  @Get()
  @ApiQuery({ type: ListLeadsQueryDto })
  list(@Ctx() ctx: RequestContext, @Query() query: unknown): Promise<Forwarded<ListEnvelope<Lead>>> {
    const filters = validateInput(ListLeadsQueryDto, query, 'query');
    assertLensAllowed(ctx, filters.lens);
    return this.rpc.forward(SUBJECTS.crm.leadsList, ctx, pageOf(filters));
  }

  @Post()
  @ApiBody({ type: CreateLeadDto })
  @HttpCode(201)
  create(@Ctx() ctx: RequestContext, @Body() body: unknown): Promise<Lead> {
    const lead = validateInput(CreateLeadDto, body, 'body');
    assertLensAllowed(ctx, lead.lens);
    return this.rpc.send(SUBJECTS.crm.leadsCreate, ctx, lead);
  }

  @Get(':id')
  get(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<Forwarded<Lead>> {
    assertIdParam(id, 'lead');
    return this.rpc.forward(SUBJECTS.crm.leadsGet, ctx, { id });
  }

  @Patch(':id')
  @ApiBody({ type: UpdateLeadDto })
  async update(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() body: unknown): Promise<Lead> {
    assertIdParam(id, 'lead');
    const changes = validateInput(UpdateLeadDto, body, 'body');
    if (changes.owner_id && !(await this.keys.memberExists(ctx.workspace_id, changes.owner_id))) {
      throw new ApiError('not_found', `No such member: '${changes.owner_id}'`, 'owner_id');
    }
    return this.rpc.send(SUBJECTS.crm.leadsUpdate, ctx, { id, changes });
  }

  /** Moves the lead to a stage taken from GET /pipelines; emits lead.stage_changed. */
  @Put(':id/stage')
  @ApiBody({ type: MoveStageDto })
  moveStage(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() body: unknown): Promise<Lead> {
    assertIdParam(id, 'lead');
    const { stage_id } = validateInput(MoveStageDto, body, 'body');
    return this.rpc.send(SUBJECTS.crm.leadsMoveStage, ctx, { id, stage_id });
  }

  @Delete(':id')
  delete(@Ctx() ctx: RequestContext, @Param('id') id: string): Promise<DeletedEnvelope> {
    assertIdParam(id, 'lead');
    return this.rpc.send(SUBJECTS.crm.leadsDelete, ctx, { id });
  }
}
