import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
export { PAGE_LIMIT } from '../limits';

/** `limit` and `starting_after` of every cursor list; query values arrive as strings. */
export class PageQueryDto {
  @IsOptional() @Matches(/^(100|[1-9][0-9]?)$/, { message: 'limit must be an integer from 1 to 100' })
  limit?: string;

  @IsOptional() @IsString() @MaxLength(512)
  starting_after?: string;
}
