import {
  ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, MaxLength, ValidateIf,
} from 'class-validator';
import { PUBLIC_EVENT_TYPES } from '../events';
import { PageQueryDto } from './pagination.dto';

export const WEBHOOK_LIMITS = { description: 200, url: 2048, events: PUBLIC_EVENT_TYPES.length + 1 } as const;
export const WEBHOOK_EVENT_CHOICES = [...PUBLIC_EVENT_TYPES, '*'] as const;

/** Body of POST /webhook_endpoints; the gateway also checks the URL is HTTPS and `*` stands alone. */
export class CreateWebhookEndpointDto {
  @IsString() @MaxLength(WEBHOOK_LIMITS.url)
  url: string;

  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(WEBHOOK_LIMITS.events)
  @IsIn(WEBHOOK_EVENT_CHOICES, { each: true, message: `each value in events must be one of: ${WEBHOOK_EVENT_CHOICES.join(', ')}` })
  events: string[];

  @IsOptional() @ValidateIf((_o, v) => v !== null) @IsString() @MaxLength(WEBHOOK_LIMITS.description)
  description?: string | null;
}

export class ListWebhookEndpointsQueryDto extends PageQueryDto {}

export type ListWebhookEndpointsRequest = { limit: number; starting_after?: string };

/** Operator requests (admin CLI), not reachable through the gateway. */
export interface WebhookEndpointRef {
  endpoint_id: string;
}
export interface ListDeliveriesRequest extends WebhookEndpointRef {
  limit?: number;
}
