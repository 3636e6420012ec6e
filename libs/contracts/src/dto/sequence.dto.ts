import { ArrayMaxSize, ArrayMinSize, IsArray, IsEmail, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import {
  API_SUPPRESSION_REASONS, LeadContact, SEQUENCE_STATUSES, SequenceStatus, SUPPRESSION_TYPES, SuppressionReason, SuppressionType,
} from '../resources/sequence';
import type { CountryRule } from '../enums';
import { PageQueryDto } from './pagination.dto';
import { ENROLLMENT_BATCH } from '../limits';
export { ENROLLMENT_BATCH } from '../limits';

export class ListSequencesQueryDto extends PageQueryDto {
  @IsOptional() @IsIn(SEQUENCE_STATUSES)
  status?: SequenceStatus;
}
export type ListSequencesRequest = Omit<ListSequencesQueryDto, 'limit'> & { limit: number };

export class CreateEnrollmentsDto {
  @IsArray() @ArrayMinSize(ENROLLMENT_BATCH.min) @ArrayMaxSize(ENROLLMENT_BATCH.max)
  @IsString({ each: true }) @MaxLength(255, { each: true })
  lead_ids: string[];
}
export interface CreateEnrollmentsRequest { sequence_id: string; lead_ids: string[] }
export interface DeleteEnrollmentRequest { sequence_id: string; lead_id: string }

export class ListSuppressionsQueryDto extends PageQueryDto {
  @IsOptional() @IsIn(SUPPRESSION_TYPES)
  type?: SuppressionType;

  @IsOptional() @IsString() @MaxLength(320)
  q?: string;
}
export type ListSuppressionsRequest = Omit<ListSuppressionsQueryDto, 'limit'> & { limit: number };

/** Exactly one of `email` and `domain` (the gateway checks it; the DTO checks each). */
export class CreateSuppressionDto {
  @IsOptional() @IsEmail({}, { message: 'email must be an email address' }) @MaxLength(320)
  email?: string;

  @IsOptional() @IsString() @MaxLength(253)
  @Matches(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, { message: 'domain must be a domain name such as example.com' })
  domain?: string;

  @IsOptional() @IsIn(API_SUPPRESSION_REASONS)
  reason?: (typeof API_SUPPRESSION_REASONS)[number];
}

/** What sequences is asked to create (the admin CLI may also create global `opt_out` entries). */
export interface CreateSuppressionRequest {
  type: SuppressionType;
  value: string;
  reason: SuppressionReason;
  scope?: 'workspace' | 'global';
}

export interface CreateMailboxRequest {
  email: string;
  smtp_url: string;
  imap_url?: string;
  daily_cap?: number;
  timezone?: string;
  window?: string;
}

export interface SequenceFileStep {
  type: 'email' | 'wait';
  subject?: string;
  body?: string;
  wait_days?: number;
}

export interface CreateSequenceRequest {
  name: string;
  lens?: string | null;
  mailbox_ids: string[];
  business_days_only?: boolean;
  steps: SequenceFileStep[];
}

export interface SequenceIdRequest { id: string }
export interface SetCountryRuleRequest { country: string; rule: CountryRule }
export interface GetLeadsRequest { ids: string[] }
export type GetLeadsResponse = LeadContact[];
/** A raw RFC 822 message handed to the sequences service (forwarding setups and tests). */
export interface InboundRawRequest { raw: string }
