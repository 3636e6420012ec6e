import { WebhookDelivery, WebhookDeliveryAttempt, WebhookDeliveryStatus } from '@app/contracts';

/** A webhook_deliveries row as the deliveries list reads it. */
export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: WebhookDeliveryStatus;
  next_attempt_at: Date;
  created_at: Date;
  completed_at: Date | null;
}

export const DELIVERY_COLUMNS = 'id, endpoint_id, event_id, event_type, status, next_attempt_at, created_at, completed_at';

/** A webhook_attempts row. */
export interface AttemptOfDelivery {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  outcome: 'succeeded' | 'failed';
  status_code: number | null;
  error: string | null;
  latency_ms: number;
}

export function renderDelivery(row: DeliveryRow, attempts: AttemptOfDelivery[]): WebhookDelivery {
  return {
    id: row.id,
    object: 'webhook_delivery',
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: attempts.map((a): WebhookDeliveryAttempt => ({
      attempt: a.attempt,
      attempted_at: a.attempted_at.toISOString(),
      outcome: a.outcome,
      status_code: a.status_code,
      error: a.error,
      latency_ms: a.latency_ms,
    })),
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at ? row.completed_at.toISOString() : null,
  };
}
