import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsIn, IsNotEmpty, IsObject, IsString, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { LENSES, Lens } from '../enums';
import { EXPORT_FORMATS, ExportFormat } from '../resources/export';
import { LEAD_LIMITS } from './lead.dto';
import { IsDateTime } from './date-time';
import { NOT_NULL_WHEN_PRESENT } from './validators';

/**
 * ExportFilter: every field optional; a field that is sent must have its type (null is not
 * "no filter": leave the field out).
 */
export class ExportFilterDto {
  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsIn(LENSES, { message: `lens must be one of: ${LENSES.join(', ')}` })
  lens?: Lens;

  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsString() @IsNotEmpty() @MaxLength(LEAD_LIMITS.tagLength)
  tag?: string;

  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsString() @IsNotEmpty() @MaxLength(255)
  pipeline_id?: string;

  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsString() @IsNotEmpty() @MaxLength(255)
  stage_id?: string;

  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsString() @IsNotEmpty() @MaxLength(255)
  list_id?: string;

  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsDateTime()
  updated_since?: string;
}

/** Body of POST /exports. */
export class CreateExportDto {
  @IsIn(EXPORT_FORMATS, { message: `format must be one of: ${EXPORT_FORMATS.join(', ')}` })
  format: ExportFormat;

  @ValidateIf(NOT_NULL_WHEN_PRESENT)
  @IsObject({ message: 'filter must be an object (ExportFilter)' })
  @ValidateNested()
  @Type(() => ExportFilterDto)
  filter?: ExportFilterDto;
}
