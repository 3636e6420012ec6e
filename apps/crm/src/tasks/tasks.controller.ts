import { Controller } from '@nestjs/common';
import { CreateTaskDto, ListTasksRequest, RequestContext, SUBJECTS, UpdateTaskRequest } from '@app/contracts';
import { Rpc } from '@app/platform';
import { TasksService } from './tasks.service';

/** NATS request-reply handlers of the task subjects. */
@Controller()
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @Rpc(SUBJECTS.crm.tasksList)
  list(ctx: RequestContext, body: ListTasksRequest) {
    return this.tasks.list(ctx, body);
  }

  @Rpc(SUBJECTS.crm.tasksCreate)
  create(ctx: RequestContext, body: CreateTaskDto) {
    return this.tasks.create(ctx, body);
  }

  @Rpc(SUBJECTS.crm.tasksUpdate)
  update(ctx: RequestContext, body: UpdateTaskRequest) {
    return this.tasks.update(ctx, body.id, body.changes);
  }
}
