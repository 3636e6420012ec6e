import { PublicEventType } from '../events';

export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/** The WebhookEndpoint resource of the spec; never carries its secret after creation. */
export interface WebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  description: string | null;
  events: Array<PublicEventType | '*'>;
  status: WebhookEndpointStatus;
  created_at: string;
}

/** The answer of POST /webhook_endpoints: the only time the signing secret is shown. */
export interface CreatedWebhookEndpoint extends WebhookEndpoint {
  secret: string;
}

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dropped'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

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
