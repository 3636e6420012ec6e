import { ApiProperty, ApiPropertyOptional, ApiSchema, schemaPath } from './api-docs';
import { ConstProperty, DateTimeProperty, IdProperty, LivemodeProperty } from './resources/api-property';
import { CreditBalance } from './resources/credits';
import { Lead } from './resources/lead';
import { Reveal } from './resources/search';
import { EmailMessage, Enrollment, Suppression } from './resources/sequence';
import { ApiVersion } from './versions';
import { type EventType, PUBLIC_EVENT_TYPES } from './event-types';

// the event types in a file of their own, without @nestjs/swagger, for what imports them by path (nats-flows.ts)
export * from './event-types';

/** `data` of an event: the resource it is about. */
export class EventData<T = unknown> {
  @ApiProperty(() => ({
    description:
      'The resource, rendered with `api_version`: Lead (lead.*), Reveal, EmailMessage (email.*), Enrollment (sequence.completed), Suppression (unsubscribe.created) or CreditBalance (credits.low).',
    anyOf: [
      ...[Lead, Reveal, EmailMessage, Enrollment, Suppression, CreditBalance].map((resource) => ({ $ref: schemaPath(resource) })),
      { type: 'object', additionalProperties: true },
    ],
  }))
  object!: T;

  @ApiPropertyOptional({ type: 'object', description: 'Old values, for `lead.updated`.', additionalProperties: true })
  previous_attributes?: Record<string, unknown>;
}

/** The event envelope of the spec. */
@ApiSchema({ name: 'Event', description: 'Envelope of a webhook event delivery.' })
export class EventEnvelope<T = unknown> {
  @IdProperty('evt_')
  id!: string;

  @ConstProperty('event')
  object!: 'event';

  @ApiProperty({ type: 'string', description: 'One of the event types; new types may be added.', examples: [...PUBLIC_EVENT_TYPES] })
  type!: EventType;

  @ApiProperty({ type: 'string', description: 'The version pinned on the endpoint at creation; read through GET /events, the workspace\'s default version.', format: 'date' })
  api_version!: ApiVersion;

  @DateTimeProperty()
  created!: string;

  @ApiProperty({ type: 'string', description: 'Prefix `ws_`.' })
  workspace_id!: string;

  @LivemodeProperty()
  livemode!: boolean;

  @ApiPropertyOptional({
    type: 'boolean',
    enum: [true],
    description: 'Present (true) only on a sample event sent by POST /webhook_endpoints/{id}/test: nothing happened, and its `livemode` is false.',
  })
  sample?: true;

  @ApiProperty({ type: EventData })
  data!: EventData<T>;
}

export interface WorkspaceCreatedData {
  workspace_id: string;
  plan: string;
  plan_credits: number;
  pack_credits: number;
}

/** An event a durable consumer gave up on after its last delivery failed, kept in the service's `dead_events`. */
export interface DeadEvent {
  service: string;
  /** The durable consumer that failed it. */
  consumer: string;
  event_id: string;
  type: string;
  last_error: string;
  /** Deliveries plus replays that failed. */
  attempts: number;
  first_failed_at: string;
  last_failed_at: string;
  envelope: EventEnvelope;
}

export interface ListDeadEventsRequest {
  limit?: number;
}

/** `event_id` replays that event (in every consumer that gave up on it); `all` replays the whole store. */
export interface ReplayDeadEventsRequest {
  event_id?: string;
  all?: boolean;
}

export interface ReplayDeadEventsResult {
  replayed: { consumer: string; event_id: string }[];
  failed: { consumer: string; event_id: string; error: string }[];
}
