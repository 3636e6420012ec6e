import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreateTaskDto, ListTasksRequest, RpcRequest, SUBJECTS, UpdateTaskRequest } from '@app/contracts';
import { unpack } from '@app/platform';
import { TasksService } from './tasks.service';

/** NATS request-reply handlers of the task subjects. */
@Controller()
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @MessagePattern(SUBJECTS.crm.tasksList)
  list(@Payload() message: RpcRequest<ListTasksRequest>) {
    const { ctx, body } = unpack(message);
    return this.tasks.list(ctx, body);
  }

  @MessagePattern(SUBJECTS.crm.tasksCreate)
  create(@Payload() message: RpcRequest<CreateTaskDto>) {
    const { ctx, body } = unpack(message);
    return this.tasks.create(ctx, body);
  }

  @MessagePattern(SUBJECTS.crm.tasksUpdate)
  update(@Payload() message: RpcRequest<UpdateTaskRequest>) {
    const { ctx, body } = unpack(message);
    return this.tasks.update(ctx, body.id, body.changes);
  }
}
