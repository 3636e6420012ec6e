import { IsIn, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { TASK_STATUSES, TaskStatus } from '../resources/task';
import { IsDateTime } from './date-time';
import { PageQueryDto } from './pagination.dto';
import { NOT_NULL_WHEN_PRESENT } from './validators';
import { TASK_LIMITS } from '../limits';
export { TASK_LIMITS, NOTE_LIMITS } from '../limits';

const NOT_BLANK = /\S/;
const titleNotBlank = { message: 'title must not be empty or blank' };

export class CreateTaskDto {
  @IsString() @MaxLength(TASK_LIMITS.title) @Matches(NOT_BLANK, titleNotBlank)
  title: string;

  /** A lead of the workspace (else 404 on lead_id). */
  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsString() @MaxLength(TASK_LIMITS.id)
  lead_id?: string;

  /** A member of the workspace (else 404 on assignee_id); defaults to the workspace owner. */
  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsString() @MaxLength(TASK_LIMITS.id)
  assignee_id?: string;

  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsDateTime()
  due_at?: string;
}

/** Only the fields sent change; null clears `due_at` and unassigns `assignee_id`. */
export class UpdateTaskDto {
  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsString() @MaxLength(TASK_LIMITS.title) @Matches(NOT_BLANK, titleNotBlank)
  title?: string;

  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsIn(TASK_STATUSES)
  status?: TaskStatus;

  @IsOptional() @IsDateTime()
  due_at?: string | null;

  @IsOptional() @IsString() @MaxLength(TASK_LIMITS.id)
  assignee_id?: string | null;
}

export class ListTasksQueryDto extends PageQueryDto {
  @IsOptional() @IsIn(TASK_STATUSES)
  status?: TaskStatus;

  @IsOptional() @IsString() @MaxLength(TASK_LIMITS.id)
  lead_id?: string;

  @IsOptional() @IsString() @MaxLength(TASK_LIMITS.id)
  assignee_id?: string;

  /** Tasks due strictly before this instant (tasks without a due date never match). */
  @IsOptional() @IsDateTime()
  due_before?: string;
}

/** What the gateway hands crm for a list: filters plus the decoded page. */
export type ListTasksRequest = Omit<ListTasksQueryDto, 'limit'> & { limit: number };

export interface UpdateTaskRequest {
  id: string;
  changes: UpdateTaskDto;
}

/**
 * crm.notes.create: a note on `lead_id`, written by the member of the request context. crm
 * checks it (no gateway in front: the caller is the application side).
 */
export interface CreateNoteRequest {
  lead_id: string;
  body: string;
}
