import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiQuery } from '@nestjs/swagger';
import {
  CreateTaskDto, ListEnvelope, ListTasksQueryDto, RequestContext, SUBJECTS, Task, UpdateTaskDto, UpdateTaskRequest,
} from '@app/contracts';
import { ApiKeysRepository } from '../auth/api-keys.repository';
import { ApiError } from '../http/api-error';
import { Ctx } from '../http/request-context.decorator';
import { pageOf } from '../http/page-query';
import { assertIdParam, validateInput } from '../http/validation';
import { RpcClient } from '../rpc/rpc.client';

@Controller('api/v1/tasks')
export class TasksController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly keys: ApiKeysRepository,
  ) {}

  @Get()
  @ApiQuery({ type: ListTasksQueryDto })
  list(@Ctx() ctx: RequestContext, @Query() query: unknown): Promise<ListEnvelope<Task>> {
    const filters = validateInput(ListTasksQueryDto, query, 'query');
    return this.rpc.send(SUBJECTS.crm.tasksList, ctx, pageOf(filters));
  }

  @Post()
  @ApiBody({ type: CreateTaskDto })
  @HttpCode(201)
  async create(@Ctx() ctx: RequestContext, @Body() body: unknown): Promise<Task> {
    const task = validateInput(CreateTaskDto, body, 'body');
    await this.assertMember(ctx, task.assignee_id);
    return this.rpc.send(SUBJECTS.crm.tasksCreate, ctx, task);
  }

  @Patch(':id')
  @ApiBody({ type: UpdateTaskDto })
  async update(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() body: unknown): Promise<Task> {
    assertIdParam(id, 'task');
    const changes = validateInput(UpdateTaskDto, body, 'body');
    await this.assertMember(ctx, changes.assignee_id);
    return this.rpc.send(SUBJECTS.crm.tasksUpdate, ctx, { id, changes } satisfies UpdateTaskRequest);
  }

  /** Members live in the gateway: an assignee that is not a member of the workspace does not exist. */
  private async assertMember(ctx: RequestContext, assigneeId: string | null | undefined): Promise<void> {
    if (typeof assigneeId === 'string' && !(await this.keys.memberExists(ctx.workspace_id, assigneeId))) {
      throw new ApiError('not_found', `No such member: '${assigneeId}'`, 'assignee_id');
    }
  }
}
