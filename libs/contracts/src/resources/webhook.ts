import { ApiProperty, ApiSchema } from '../api-docs';
import type { PublicEventType } from '../event-types';
import { ConstProperty, DateTimeProperty, IdProperty } from './api-property';

export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/** The WebhookEndpoint resource of the spec; never carries its secret after creation. */
export class WebhookEndpoint {
  @IdProperty('we_')
  id!: string;

  @ConstProperty('webhook_endpoint')
  object!: 'webhook_endpoint';

  @ApiProperty({ type: 'string', description: 'HTTPS URL receiving events.', format: 'uri' })
  url!: string;

  @ApiProperty({ type: 'string', maxLength: 200, nullable: true })
  description!: string | null;

  @ApiProperty({ type: 'string', isArray: true, description: 'Subscribed event types; `*` means all.' })
  events!: Array<PublicEventType | '*'>;

  @ApiProperty({ enum: WEBHOOK_ENDPOINT_STATUSES, description: 'Disabled endpoints receive nothing.' })
  status!: WebhookEndpointStatus;

  @DateTimeProperty()
  created_at!: string;
}

/** The answer of POST /webhook_endpoints: the only time the signing secret is shown. */
@ApiSchema({ name: 'WebhookEndpointWithSecret' })
export class CreatedWebhookEndpoint extends WebhookEndpoint {
  @ApiProperty({ type: 'string', description: 'Signing secret, prefix `whsec_`; returned only at creation.', pattern: '^whsec_' })
  secret!: string;
}

/**
 * The answer of POST /webhook_endpoints/{id}/secret/roll: the new secret, shown this once. Until
 * `previous_secret_expires_at` deliveries carry a `v1` signature with each secret.
 */
@ApiSchema({ name: 'WebhookEndpointWithRolledSecret' })
export class RolledWebhookEndpoint extends CreatedWebhookEndpoint {
  @DateTimeProperty('Until then deliveries are signed with the previous secret too (a second `v1` in `Service-Signature`).')
  previous_secret_expires_at!: string;
}

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dropped'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** One POST of a delivery to its endpoint. */
export class WebhookDeliveryAttempt {
  @ApiProperty({ type: 'integer', minimum: 1, description: '1 for the first attempt; a retry asked for through the API continues the count.' })
  attempt!: number;

  @DateTimeProperty()
  attempted_at!: string;

  @ApiProperty({ enum: ['succeeded', 'failed'], description: '`succeeded`: a 2xx within 10 seconds.' })
  outcome!: 'succeeded' | 'failed';

  @ApiProperty({ type: 'integer', nullable: true, description: 'The HTTP status answered; null for a time-out, a connection error or a refused address.' })
  status_code!: number | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'Why the attempt failed (`HTTP 500`, a time-out, a connection error, a refused address); null when it succeeded.' })
  error!: string | null;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Milliseconds from sending to the answer (or the failure).' })
  latency_ms!: number;
}

/** One event sent to one endpoint, with every attempt made. */
export class WebhookDelivery {
  @IdProperty('whd_')
  id!: string;

  @ConstProperty('webhook_delivery')
  object!: 'webhook_delivery';

  @ApiProperty({ type: 'string', description: 'Prefix `we_`.' })
  endpoint_id!: string;

  @ApiProperty({ type: 'string', description: 'The event delivered (the envelope\'s `id`, prefix `evt_`).' })
  event_id!: string;

  @ApiProperty({ type: 'string', description: 'The event\'s type.', examples: ['lead.created'] })
  event_type!: string;

  @ApiProperty({
    enum: WEBHOOK_DELIVERY_STATUSES,
    description: '`pending` until an attempt succeeds (`succeeded`) or the last retry fails (`failed`); `dropped` when its endpoint was disabled.',
  })
  status!: WebhookDeliveryStatus;

  @ApiProperty({ type: WebhookDeliveryAttempt, isArray: true, description: 'Oldest first; empty until the first attempt is recorded.' })
  attempts!: WebhookDeliveryAttempt[];

  @DateTimeProperty('When the next attempt is due, while `pending`; null otherwise.', { nullable: true })
  next_attempt_at!: string | null;

  @DateTimeProperty()
  created_at!: string;

  @DateTimeProperty('When it ended as `succeeded`, `failed` or `dropped`; null while `pending`.', { nullable: true })
  completed_at!: string | null;
}

/** One POST to an endpoint, as the admin CLI shows it (not part of the public API). */
export interface WebhookAttempt {
  delivery_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  attempted_at: string;
  /** HTTP status, or null for a time-out or a connection error. */
  status_code: number | null;
  outcome: 'succeeded' | 'failed';
  error: string | null;
  latency_ms: number;
  /** Delivery state after this attempt and, when pending, its next attempt. */
  delivery_status: WebhookDeliveryStatus;
  next_attempt_at: string | null;
}
