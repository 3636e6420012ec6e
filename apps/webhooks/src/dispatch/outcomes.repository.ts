import { Inject, Injectable } from '@nestjs/common';
import { Queryable } from '@app/platform';
import { WEBHOOKS_CONFIG, WebhooksConfig } from '../webhooks-config';
import { retryClockSql } from './deliveries.repository';
import { DeliveryStatusAfter, FailureCountChange } from './delivery-rules';

/** One attempt's outcome as it is written: the delivery's next state and the attempt's row. */
export interface OutcomeWrite {
  deliveryId: string;
  claimToken: string;
  endpointId: string;
  attempt: number;
  /** Attempts the delivery gets at most. */
  maxAttempts: number;
  status: DeliveryStatusAfter;
  delayMs: number;
  statusCode: number | null;
  ok: boolean;
  error: string | null;
  latencyMs: number;
}

/**
 * The statements that record attempts, each over unnest for a group of outcomes (hand-written:
 * one statement per table for every outcome that finished meanwhile, in the caller's transaction).
 */
@Injectable()
export class OutcomesRepository {
  constructor(@Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig) {}

  /**
   * Each delivery's next state, where its claim is still held (not lost to an expired lease or a
   * deleted endpoint); the lease is given up. Returns the ids whose claim was held.
   */
  async settleDeliveries(tx: Queryable, outcomes: OutcomeWrite[]): Promise<Set<string>> {
    const { rows } = await tx.query<{ id: string }>(
      `UPDATE webhook_deliveries d SET attempts = u.attempt, status = u.status, locked_until = NULL, claim_token = NULL,
         next_attempt_at = ${retryClockSql(this.config)} + u.delay * interval '1 millisecond',
         completed_at = CASE WHEN u.status <> 'pending' THEN now() END
       FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::bigint[]) AS u(id, token, attempt, status, delay)
       WHERE d.id = u.id AND d.claim_token = u.token
       RETURNING d.id`,
      [outcomes.map((o) => o.deliveryId), outcomes.map((o) => o.claimToken), outcomes.map((o) => o.attempt), outcomes.map((o) => o.status), outcomes.map((o) => o.delayMs)],
    );
    return new Set(rows.map((r) => r.id));
  }

  async insertAttempts(tx: Queryable, outcomes: OutcomeWrite[]): Promise<void> {
    await tx.query(
      `INSERT INTO webhook_attempts (delivery_id, endpoint_id, attempt, status_code, outcome, error, latency_ms)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::text[], $7::int[])
       ON CONFLICT DO NOTHING`,
      [
        outcomes.map((o) => o.deliveryId), outcomes.map((o) => o.endpointId), outcomes.map((o) => o.attempt),
        outcomes.map((o) => o.statusCode), outcomes.map((o) => (o.ok ? 'succeeded' : 'failed')),
        outcomes.map((o) => o.error), outcomes.map((o) => o.latencyMs),
      ],
    );
  }

  /** Applies the failure counts; an endpoint whose count reaches `disableAt` is disabled. Returns the disabled ones' ids. */
  async applyFailureCounts(tx: Queryable, changes: FailureCountChange[], disableAt: number): Promise<string[]> {
    const { rows } = await tx.query<{ id: string; status: string }>(
      `UPDATE webhook_endpoints e SET
         consecutive_failures = CASE WHEN u.reset THEN u.add ELSE e.consecutive_failures + u.add END,
         status = CASE WHEN (CASE WHEN u.reset THEN u.add ELSE e.consecutive_failures + u.add END) >= $4 THEN 'disabled' ELSE e.status END,
         disabled_at = CASE WHEN e.status = 'enabled' AND (CASE WHEN u.reset THEN u.add ELSE e.consecutive_failures + u.add END) >= $4
           THEN now() ELSE e.disabled_at END
       FROM unnest($1::text[], $2::bool[], $3::int[]) AS u(id, reset, add)
       WHERE e.id = u.id
       RETURNING e.id, e.status`,
      [changes.map((c) => c.endpointId), changes.map((c) => c.reset), changes.map((c) => c.add), disableAt],
    );
    return rows.filter((e) => e.status === 'disabled').map((e) => e.id);
  }

  /** The pending deliveries of disabled endpoints, dropped. */
  async dropPendingOf(tx: Queryable, endpointIds: string[]): Promise<void> {
    await tx.query(
      `UPDATE webhook_deliveries SET status = 'dropped', completed_at = now() WHERE endpoint_id = ANY($1::text[]) AND status = 'pending'`,
      [endpointIds],
    );
  }
}
