import {
  ArrayMaxSize, IsArray, IsEmail, IsIn, IsNotEmpty, IsOptional, IsString, IsUrl, Matches, MaxLength, ValidateIf,
} from 'class-validator';
import { LAWFUL_BASES, LENSES, LawfulBasis, Lens } from '../enums';
import { CustomFieldValue } from '../resources/lead';
import { IsDateTime } from './date-time';
import { PageQueryDto } from './pagination.dto';
import { IsCountryCode, IsCustomFields, IsFullName, NOT_NULL_WHEN_PRESENT } from './validators';
import { LEAD_LIMITS } from '../limits';
export { LEAD_LIMITS } from '../limits';

const URL_OPTIONS = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

export class CreateLeadDto {
  @IsOptional() @IsIn(LENSES)
  lens?: Lens;

  @IsOptional() @IsString() @MaxLength(LEAD_LIMITS.firstName)
  first_name?: string;

  @IsOptional() @IsString() @MaxLength(LEAD_LIMITS.lastName)
  last_name?: string;

  @IsFullName(LEAD_LIMITS.fullName)
  full_name?: string;

  @IsOptional() @IsString() @MaxLength(LEAD_LIMITS.title)
  title?: string;

  @IsOptional() @IsString() @MaxLength(254) @IsEmail({}, { message: 'email must be a valid email address' })
  email?: string;

  @IsOptional() @IsString() @MaxLength(40)
  phone?: string;

  @IsOptional() @IsString() @MaxLength(2048) @IsUrl(URL_OPTIONS, { message: 'website must be an http(s) URL' })
  website?: string;

  @IsOptional() @IsString() @MaxLength(200)
  company_name?: string;

  /** A domain, or a URL on it (scheme, `www.`, port, path and trailing dots are dropped when matching). */
  @IsOptional() @IsString() @MaxLength(2048)
  @Matches(/^(https?:\/\/)?([a-z0-9-]+\.)+[a-z0-9-]+\.?(:\d{1,5})?([/?#]\S*)?$/i, { message: 'company_domain must be a domain name or a URL on it' })
  company_domain?: string;

  @IsOptional() @IsCountryCode()
  country?: string;

  @IsOptional() @IsIn(LAWFUL_BASES)
  lawful_basis?: LawfulBasis;

  @IsOptional() @IsString() @MaxLength(2048) @IsUrl(URL_OPTIONS, { message: 'source_url must be an http(s) URL' })
  source_url?: string;

  @IsOptional() @IsArray() @ArrayMaxSize(LEAD_LIMITS.tags)
  @IsString({ each: true }) @IsNotEmpty({ each: true }) @MaxLength(LEAD_LIMITS.tagLength, { each: true })
  tags?: string[];

  @IsOptional() @IsCustomFields(false)
  custom_fields?: Record<string, CustomFieldValue>;
}

export class UpdateLeadDto {
  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsString() @MaxLength(LEAD_LIMITS.firstName)
  first_name?: string;

  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsString() @MaxLength(LEAD_LIMITS.lastName)
  last_name?: string;

  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsString() @MaxLength(LEAD_LIMITS.title)
  title?: string;

  @IsOptional() @IsString() @MaxLength(40)
  phone?: string | null;

  @IsOptional() @IsString() @MaxLength(2048) @IsUrl(URL_OPTIONS, { message: 'website must be an http(s) URL' })
  website?: string | null;

  @IsOptional() @IsCountryCode()
  country?: string | null;

  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsIn(LAWFUL_BASES)
  lawful_basis?: LawfulBasis;

  @IsOptional() @IsString() @MaxLength(255)
  owner_id?: string | null;

  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsCustomFields(true)
  custom_fields?: Record<string, CustomFieldValue | null>;
}

export class ListLeadsQueryDto extends PageQueryDto {
  @IsOptional() @IsIn(LENSES)
  lens?: Lens;

  @IsOptional() @IsString() @MaxLength(LEAD_LIMITS.tagLength)
  tag?: string;

  @IsOptional() @IsString() @MaxLength(255)
  stage_id?: string;

  @IsOptional() @IsString() @MaxLength(200)
  q?: string;

  @IsOptional() @IsDateTime()
  updated_since?: string;
}

/** What the gateway hands crm for a list: filters plus the decoded page. */
export type ListLeadsRequest = Omit<ListLeadsQueryDto, 'limit'> & { limit: number };
