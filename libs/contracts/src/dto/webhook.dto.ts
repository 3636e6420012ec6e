import {
  ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, Matches, MaxLength, ValidateIf,
} from 'class-validator';
import { EventEnvelope, PUBLIC_EVENT_TYPES, PublicEventType } from '../events';
import { IsDateTime } from './date-time';
import { WEBHOOK_ENDPOINT_STATUSES, WebhookEndpointStatus } from '../resources/webhook';
import { PageQueryDto } from './pagination.dto';
import { NOT_NULL_WHEN_PRESENT } from './validators';
import { WEBHOOK_LIMITS, WEBHOOK_EVENT_CHOICES } from '../limits';
export { WEBHOOK_LIMITS, WEBHOOK_EVENT_CHOICES } from '../limits';

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

/**
 * Body of PATCH /webhook_endpoints/{id}: only the fields sent change. `status` `enabled` on a
 * disabled endpoint restarts its failure count (spec: states and transitions); `disabled` stops
 * deliveries and drops its pending retries, as the automatic disabling does.
 */
export class UpdateWebhookEndpointDto {
  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsString() @MaxLength(WEBHOOK_LIMITS.url)
  url?: string;

  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsArray() @ArrayMinSize(1) @ArrayMaxSize(WEBHOOK_LIMITS.events)
  @IsIn(WEBHOOK_EVENT_CHOICES, { each: true, message: `each value in events must be one of: ${WEBHOOK_EVENT_CHOICES.join(', ')}` })
  events?: string[];

  @IsOptional() @ValidateIf((_o, v) => v !== null) @IsString() @MaxLength(WEBHOOK_LIMITS.description)
  description?: string | null;

  @ValidateIf(NOT_NULL_WHEN_PRESENT) @IsIn(WEBHOOK_ENDPOINT_STATUSES)
  status?: WebhookEndpointStatus;
}

export class ListWebhookEndpointsQueryDto extends PageQueryDto {}

export type ListWebhookEndpointsRequest = { limit: number; starting_after?: string };

export class ListWebhookDeliveriesQueryDto extends PageQueryDto {}

/** GET /webhook_endpoints/{id}/deliveries as the gateway asks it. */
export type ListEndpointDeliveriesRequest = { id: string; limit: number; starting_after?: string };

/** POST /webhook_endpoints/{id}/deliveries/{delivery_id}/retry as the gateway asks it. */
export type RetryDeliveryRequest = { id: string; delivery_id: string };

/** Body of POST /webhook_endpoints/{id}/test: the type of the sample event to send. */
export class TestWebhookEndpointDto {
  @IsIn(PUBLIC_EVENT_TYPES, { message: `type must be one of: ${PUBLIC_EVENT_TYPES.join(', ')}` })
  type: PublicEventType;
}

/** POST /webhook_endpoints/{id}/test as the gateway asks it. */
export type TestWebhookEndpointRequest = { id: string; type: PublicEventType };

/** GET /events: newest first; `created[gte]` and `created[lte]` bound `created` (both inclusive). */
export class ListEventsQueryDto extends PageQueryDto {
  @IsOptional() @IsIn(PUBLIC_EVENT_TYPES, { message: `type must be one of: ${PUBLIC_EVENT_TYPES.join(', ')}` })
  type?: PublicEventType;

  @IsOptional() @IsDateTime()
  'created[gte]'?: string;

  @IsOptional() @IsDateTime()
  'created[lte]'?: string;
}

/** GET /events as the gateway asks it. */
export type ListEventsRequest = Omit<ListEventsQueryDto, 'limit'> & { limit: number };

const EVENT_TYPE_PATTERN = PUBLIC_EVENT_TYPES.map((type) => type.replace(/\./g, '\\.')).join('|');

/** GET /events/stream: `types`, event types separated by commas, keeps those types only. */
export class StreamEventsQueryDto {
  @IsOptional() @Matches(new RegExp(`^(${EVENT_TYPE_PATTERN})(,(${EVENT_TYPE_PATTERN}))*$`), {
    message: `types must be event types separated by commas, each one of: ${PUBLIC_EVENT_TYPES.join(', ')}`,
  })
  types?: string;
}

/**
 * GET /events/stream as the gateway asks it, once on connecting and then at each poll: the
 * events after `after` (a position the previous answer gave), or after the stored event
 * `last_event_id` (the client's `Last-Event-ID`), or, with neither, none yet and the position of
 * the present.
 */
export interface StreamEventsRequest {
  after?: string;
  last_event_id?: string;
  types?: PublicEventType[];
  limit: number;
}

/**
 * The events after the position asked, in the order their transactions became final (each
 * rendered as GET /events/{id} answers it), and the position to ask from next; `has_more` when
 * the page was full.
 */
export interface StreamEventsPage {
  data: EventEnvelope[];
  position: string;
  has_more: boolean;
}

export type UpdateWebhookEndpointRequest = UpdateWebhookEndpointDto & { id: string };

/** Operator requests (admin CLI), not reachable through the gateway. */
export interface WebhookEndpointRef {
  endpoint_id: string;
}
export interface ListDeliveriesRequest extends WebhookEndpointRef {
  limit?: number;
}
