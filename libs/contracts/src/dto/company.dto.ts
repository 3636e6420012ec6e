import { IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from './pagination.dto';
import { IsCountryCode } from './validators';

export class ListCompaniesQueryDto extends PageQueryDto {
  @IsOptional() @IsString() @MaxLength(200)
  q?: string;

  @IsOptional() @IsCountryCode()
  country?: string;
}

export type ListCompaniesRequest = Omit<ListCompaniesQueryDto, 'limit'> & { limit: number };
