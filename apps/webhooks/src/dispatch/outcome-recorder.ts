import { Injectable } from '@nestjs/common';
import { counter, histogram, UnitOfWork } from '@app/platform';
import { Claimed } from './deliveries.repository';
import { afterAttempt, DISABLE_AFTER_FAILED_DELIVERIES, failureCountChanges, MAX_ATTEMPTS } from './delivery-rules';
import { OutcomesRepository, OutcomeWrite } from './outcomes.repository';
import { SendResult } from './sender';

const deliveryAttempts = counter('webhook_delivery_attempts_total', 'Webhook delivery attempts by outcome (success, http_3xx/4xx/5xx, no_response)', ['outcome']);
const deliveryLatency = histogram('webhook_delivery_duration_seconds', 'Time a receiver took to answer a webhook delivery attempt', ['outcome']);
/** Outcomes written in one transaction at most. */
const MAX_GROUP = 500;

interface Waiting {
  write: OutcomeWrite;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * Records attempts' outcomes: those that finish while a group is being written wait and are
 * written together, one transaction for the lot. Only outcomes whose claim is still held count:
 * the delivery's next state, the attempt row, and the endpoints' failure counts in order (a
 * success restarts the count; each delivery failed for good adds one; 100 disable).
 */
@Injectable()
export class OutcomeRecorder {
  private readonly waiting: Waiting[] = [];
  private flushing = false;

  constructor(
    private readonly outcomes: OutcomesRepository,
    private readonly uow: UnitOfWork,
  ) {}

  /** Resolves once the outcome is committed (or was not this claim's to write). */
  record(row: Claimed, result: SendResult): Promise<void> {
    const outcome = result.ok ? 'success' : result.status_code === null ? 'no_response' : `http_${Math.floor(result.status_code / 100)}xx`;
    deliveryAttempts.inc({ outcome });
    deliveryLatency.observe({ outcome }, result.latency_ms / 1000);
    const attempt = row.attempts + 1;
    const maxAttempts = row.max_attempts ?? MAX_ATTEMPTS;
    const { status, delayMs } = afterAttempt(attempt, result.ok, maxAttempts);
    const write: OutcomeWrite = {
      deliveryId: row.id, claimToken: row.claim_token, endpointId: row.endpoint_id, attempt, maxAttempts, status, delayMs,
      statusCode: result.status_code, ok: result.ok, error: result.error?.slice(0, 500) ?? null, latencyMs: result.latency_ms,
    };
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ write, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0, MAX_GROUP);
        try {
          await this.write(group.map((w) => w.write));
          for (const w of group) w.resolve();
        } catch (err) {
          for (const w of group) w.reject(err as Error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * No wait for the WAL flush: a database crash can lose an outcome, and then the attempt is
   * simply made again (deliveries are at least once); it never loses a delivery.
   */
  private async write(group: OutcomeWrite[]): Promise<void> {
    await this.uow.run(async (tx) => {
      const held = await this.outcomes.settleDeliveries(tx, group);
      const kept = group.filter((o) => held.has(o.deliveryId));
      if (kept.length === 0) return;
      await this.outcomes.insertAttempts(tx, kept);
      const changes = failureCountChanges(kept);
      if (changes.length === 0) return;
      const disabled = await this.outcomes.applyFailureCounts(tx, changes, DISABLE_AFTER_FAILED_DELIVERIES);
      // a disabled endpoint receives nothing: its retries are dropped, not kept for later
      if (disabled.length > 0) await this.outcomes.dropPendingOf(tx, disabled);
    }, { asyncCommit: true });
  }
}
