import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ListEnvelope, RequestContext, SUBJECTS, Task, UpdateTaskRequest } from '@app/contracts';
import { CreateTaskDto, ListTasksQueryDto, UpdateTaskDto } from '@app/contracts/dto';
import { MemberOf } from '../http/member.guard';
import { Ctx } from '../http/request-context.decorator';
import { pageOf } from '../http/page-query';
import { Operation } from '../openapi/operation.decorator';
import { RpcClient } from '../rpc/rpc.client';

@Controller('api/v1/tasks')
export class TasksController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Operation({ summary: 'List tasks', response: 'list:Task', errors: [400, 401, 403, 429, 500] })
  list(@Ctx() ctx: RequestContext, @Query() filters: ListTasksQueryDto): Promise<ListEnvelope<Task>> {
    return this.rpc.send(SUBJECTS.crm.tasksList, ctx, pageOf(filters));
  }

  @Post()
  @HttpCode(201)
  @Operation({
    summary: 'Create a task',
    description: "Tasks with a due date show on the assignee's home screen.",
    response: 'Task',
    status: 201,
    errors: [400, 401, 403, 404, 409, 429, 500],
    idempotent: true,
  })
  @MemberOf('assignee_id')
  create(@Ctx() ctx: RequestContext, @Body() task: CreateTaskDto): Promise<Task> {
    return this.rpc.send(SUBJECTS.crm.tasksCreate, ctx, task);
  }

  @Patch(':id')
  @Operation({
    summary: 'Update a task',
    description: '`status` `done` completes the task and sets `completed_at`.',
    response: 'Task',
    errors: [400, 401, 403, 404, 409, 429, 500],
  })
  @MemberOf('assignee_id')
  update(@Ctx() ctx: RequestContext, @Param('id') id: string, @Body() changes: UpdateTaskDto): Promise<Task> {
    return this.rpc.send(SUBJECTS.crm.tasksUpdate, ctx, { id, changes } satisfies UpdateTaskRequest);
  }
}
