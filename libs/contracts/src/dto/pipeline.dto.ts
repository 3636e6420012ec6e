import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from './pagination.dto';

export class MoveStageDto {
  @IsString() @IsNotEmpty() @MaxLength(255)
  stage_id: string;
}

export class ListPipelinesQueryDto extends PageQueryDto {}

export type ListPipelinesRequest = Omit<ListPipelinesQueryDto, 'limit'> & { limit: number };
