import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { NatsConnection, Subscription } from '@nats-io/transport-node';
import { Client, Pool } from 'pg';
import { NATS_BROADCASTS } from '@app/contracts';
import {
  backlogGauge, continueFrom, counter, histogram, NATS_CONNECTION, PG_POOL, pgClientConfig, randomToken, rootLogger, SERVICE_CONFIG, ServiceConfig, SpanKind,
  TraceCarrier, withTransaction,
} from '@app/platform';
import { decryptSecret } from '../secrets';
import { signatureHeader } from '../signature';
import { WEBHOOKS_CONFIG, WebhooksConfig } from '../webhooks-config';
import { SendResult, WebhookSender } from './sender';

/** Seconds after the previous attempt: about 1 min, 5 min, 30 min, 2 h, 6 h, 15 h (spec). */
export const RETRY_DELAYS_S = [60, 300, 1800, 7200, 21_600, 54_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;
/** Plus or minus this share of each delay, so failing deliveries do not retry in lockstep. */
export const RETRY_JITTER = 0.1;
export const DISABLE_AFTER_FAILED_DELIVERIES = 100;
/** Seconds a claim lasts beyond the attempt's time-out: it outlives its attempt unless the process dies. */
const LEASE_MARGIN_S = 5;
const POLL_MS = 1000;
const CLAIM_BATCH = 200;

/** NOTIFY channel: deliveries were recorded that no sender has claimed yet. */
export const DELIVERIES_CHANNEL = 'webhook_deliveries';
/** How long this process remembers a deleted endpoint, so a claim read before the delete sends nothing. */
const DELETED_MEMORY_MS = 60_000;

/** Broadcast to every replica: abort attempts in flight to a deleted endpoint. */
export const ENDPOINT_DELETED_SUBJECT = NATS_BROADCASTS.webhookEndpointDeleted;

export interface Claimed {
  id: string;
  endpoint_id: string;
  event_id: string;
  body: string;
  attempts: number;
  url: string;
  secret_enc: string;
  claim_token: string;
  /** The trace and request id of the event's publication (fanout.consumer.ts). */
  trace_context: TraceCarrier | null;
}

const deliveryAttempts = counter('webhook_delivery_attempts_total', 'Webhook delivery attempts by outcome (success, http_3xx/4xx/5xx, no_response)', ['outcome']);
const deliveryLatency = histogram('webhook_delivery_duration_seconds', 'Time a receiver took to answer a webhook delivery attempt', ['outcome']);

interface Outcome {
  row: Claimed;
  result: SendResult;
  resolve: () => void;
  reject: (err: Error) => void;
}

export function retryDelayMs(attemptsMade: number, random = Math.random()): number {
  const base = RETRY_DELAYS_S[attemptsMade - 1] * 1000;
  return Math.round(base * (1 + RETRY_JITTER * (2 * random - 1)));
}

/**
 * Sends due deliveries. Claims are leases taken with FOR UPDATE SKIP LOCKED and a fresh token:
 * replicas never hold the same attempt, and only the holder of the token records its outcome.
 * A process that dies mid-attempt leaves a lease that expires, and the attempt is made again.
 */
@Injectable()
export class Dispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = rootLogger('webhooks');
  private readonly sender: WebhookSender;
  private readonly inflight = new Map<string, number>();
  private readonly aborts = new Map<string, Set<AbortController>>();
  private readonly secrets = new Map<string, string>();
  /** Endpoints deleted lately (id -> when): claims of theirs still in hand are not sent. */
  private readonly deleted = new Map<string, number>();
  /** Attempts of this process not yet recorded: sending, or waiting for their outcome's commit. */
  private total = 0;
  private listener?: Client;
  private subscription?: Subscription;
  private timer?: NodeJS.Timeout;
  private soon?: NodeJS.Timeout;
  private pumping = false;
  private again = false;
  private stopped = false;
  private readonly idle = new Set<() => void>();
  private readonly outcomes: Outcome[] = [];
  private flushing = false;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(SERVICE_CONFIG) private readonly service: ServiceConfig,
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig,
  ) {
    // sockets are not the limit: the per-endpoint counts here are (two endpoints may share a host)
    this.sender = new WebhookSender(config.allowedHosts, config.concurrency);
  }

  /** The retry clock in SQL: the database's now, moved by the test offset when that is switched on. */
  get clockSql(): string {
    return this.config.testClock
      ? `(now() + coalesce((SELECT offset_ms FROM webhook_test_clock WHERE id = 1), 0) * interval '1 millisecond')`
      : 'now()';
  }

  async onApplicationBootstrap(): Promise<void> {
    backlogGauge('webhook_deliveries_due', 'Webhook deliveries pending whose attempt is due now (new, or retries whose delay has passed)', this.pool,
      `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ${this.clockSql}`);
    this.listener = new Client(pgClientConfig(this.service.databaseUrl));
    this.listener.on('error', (err) => this.log.warn({ err: err.message }, 'webhooks: LISTEN connection failed; polling'));
    await this.listener.connect();
    this.listener.on('notification', () => this.kick());
    await this.listener.query(`LISTEN ${DELIVERIES_CHANNEL}`);
    this.subscription = this.nc.subscribe(ENDPOINT_DELETED_SUBJECT, {
      callback: (_err, msg) => this.abortEndpoint(msg.string()),
    });
    this.schedule();
    this.kick();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.soon);
    this.subscription?.unsubscribe();
    // attempts in flight finish (at most the time-out) so their outcome is recorded
    if (this.total > 0) await new Promise<void>((resolve) => this.idle.add(resolve));
    this.sender.close();
    await this.listener?.end().catch(() => undefined);
  }

  /** Aborts this process's attempts to a deleted endpoint. */
  abortEndpoint(endpointId: string): void {
    const now = Date.now();
    for (const [id, at] of this.deleted) if (now - at > DELETED_MEMORY_MS) this.deleted.delete(id);
    this.deleted.set(endpointId, now);
    for (const controller of this.aborts.get(endpointId) ?? []) controller.abort();
    this.secrets.delete(endpointId);
  }

  /** Seconds a claim lasts: it outlives its attempt unless the process dies. */
  get leaseSeconds(): number {
    return Math.ceil(this.config.timeoutMs / 1000) + LEASE_MARGIN_S;
  }

  /**
   * A slot for a fresh delivery that the fan-out claims in its own transaction, if this process
   * has room for one more attempt to the endpoint; then `launch` (after the commit) or `release`.
   */
  reserve(endpointId: string): boolean {
    if (this.stopped || this.total >= this.config.concurrency) return false;
    if ((this.inflight.get(endpointId) ?? 0) >= this.config.endpointConcurrency) return false;
    this.take(endpointId);
    return true;
  }

  /** A reserved slot not used after all (the fan-out's transaction failed, or the row was not made). */
  release(endpointId: string): void {
    this.freeEndpoint(endpointId);
    this.freeTotal();
  }

  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump().finally(() => {
      this.pumping = false;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Slots freed within a few ms are refilled by one claim, not one claim each. */
  private kickSoon(): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.kick();
    }, 3);
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.kick();
      this.schedule();
    }, POLL_MS);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        const free = this.config.concurrency - this.total;
        if (free <= 0 || this.stopped) return;
        const asked = Math.min(free, CLAIM_BATCH);
        const claimed = await this.claim(asked);
        for (const row of claimed) this.launch(row);
        // fewer than asked: no more due rows with room now (slots freed meanwhile kick again)
        if (claimed.length < asked) return;
      }
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'webhooks: claiming deliveries failed');
    }
  }

  private async claim(limit: number): Promise<Claimed[]> {
    const saturated = [...this.inflight].filter(([, n]) => n >= this.config.endpointConcurrency).map(([id]) => id);
    const { rows: candidates } = await this.pool.query<{ id: string; endpoint_id: string }>(
      `SELECT id, endpoint_id FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at <= ${this.clockSql}
         AND (locked_until IS NULL OR locked_until < now()) AND NOT (endpoint_id = ANY($1::text[]))
       ORDER BY next_attempt_at LIMIT $2`,
      [saturated, limit * 4],
    );
    // at most the free slots of each endpoint, so one slow receiver cannot take every slot (the
    // fan-out may have reserved some while the query ran: both are counted now)
    const cap = Math.min(limit, this.config.concurrency - this.total);
    const room = new Map<string, number>();
    const ids: string[] = [];
    const endpointOf = new Map<string, string>();
    for (const c of candidates) {
      const left = room.get(c.endpoint_id) ?? this.config.endpointConcurrency - (this.inflight.get(c.endpoint_id) ?? 0);
      if (left <= 0 || ids.length >= cap) continue;
      room.set(c.endpoint_id, left - 1);
      ids.push(c.id);
      endpointOf.set(c.id, c.endpoint_id);
    }
    if (ids.length === 0) return [];
    const token = randomToken(16);
    // the slots are held while the claim is in flight, so a reservation cannot overfill an endpoint
    for (const id of ids) this.take(endpointOf.get(id)!);
    let claimedRows: Claimed[];
    try {
      // one statement, its own transaction. Its commit waits for no WAL flush (the one-time filter
      // sets synchronous_commit off for this transaction only): only a database crash could lose
      // the claim, and then the attempt is made again once more (at least once), never skipped
      ({ rows: claimedRows } = await this.pool.query<Claimed>(
        `UPDATE webhook_deliveries d SET locked_until = now() + $3 * interval '1 second', claim_token = $2
         FROM webhook_endpoints e
         WHERE (SELECT set_config('synchronous_commit', 'off', true)) = 'off'
           AND d.id IN (
             SELECT id FROM webhook_deliveries WHERE id = ANY($1::text[]) AND status = 'pending'
               AND (locked_until IS NULL OR locked_until < now()) AND next_attempt_at <= ${this.clockSql}
             FOR UPDATE SKIP LOCKED)
           AND e.id = d.endpoint_id AND e.status = 'enabled'
         RETURNING d.id, d.endpoint_id, d.event_id, d.body, d.attempts, e.url, e.secret_enc, d.claim_token, d.trace_context`,
        [ids, token, this.leaseSeconds],
      ));
    } catch (err) {
      for (const id of ids) this.release(endpointOf.get(id)!);
      throw err;
    }
    // the slots of candidates another replica claimed first (or whose endpoint went) are given back
    const got = new Set(claimedRows.map((r) => r.id));
    for (const id of ids) if (!got.has(id)) this.release(endpointOf.get(id)!);
    return claimedRows;
  }

  private take(endpointId: string): void {
    this.total++;
    this.inflight.set(endpointId, (this.inflight.get(endpointId) ?? 0) + 1);
  }

  /** The endpoint's slot: free once the receiver has answered (or the attempt ended without an answer). */
  private freeEndpoint(endpointId: string): void {
    const n = (this.inflight.get(endpointId) ?? 1) - 1;
    if (n <= 0) this.inflight.delete(endpointId);
    else this.inflight.set(endpointId, n);
    this.kickSoon();
  }

  /** The process's slot: free once the outcome is committed (bounds the outcomes waiting for the database). */
  private freeTotal(): void {
    this.total--;
    if (this.total === 0) for (const resolve of this.idle) resolve();
    this.kickSoon();
  }

  /** Sends a claimed delivery whose slots are already taken (by `claim` or `reserve`). */
  launch(row: Claimed): void {
    const gone = this.deleted.has(row.endpoint_id);
    if (gone) {
      // deleted after the claim was read: nothing is sent, and the row went with the endpoint
      this.release(row.endpoint_id);
      return;
    }
    const controller = new AbortController();
    const set = this.aborts.get(row.endpoint_id) ?? new Set();
    set.add(controller);
    this.aborts.set(row.endpoint_id, set);
    let answered = false;
    const answer = () => {
      if (answered) return;
      answered = true;
      set.delete(controller);
      if (set.size === 0 && this.aborts.get(row.endpoint_id) === set) this.aborts.delete(row.endpoint_id);
      this.freeEndpoint(row.endpoint_id);
    };
    const attributes = { 'webhook.delivery.id': row.id, 'webhook.endpoint.id': row.endpoint_id };
    void continueFrom(row.trace_context, 'webhook delivery', SpanKind.CLIENT, attributes, () =>
      this.attempt(row, controller.signal, answer).catch((err) => this.log.error({ err, delivery_id: row.id }, 'webhooks: recording an attempt failed')),
    )
      .finally(() => {
        answer();
        this.freeTotal();
      });
  }

  private secretOf(row: Claimed): string {
    let secret = this.secrets.get(row.endpoint_id);
    if (!secret) {
      secret = decryptSecret(row.secret_enc, this.config.secretKey);
      this.secrets.set(row.endpoint_id, secret);
    }
    return secret;
  }

  private async attempt(row: Claimed, signal: AbortSignal, answered: () => void): Promise<void> {
    let result: SendResult;
    try {
      const t = Math.floor(Date.now() / 1000); // the real clock: receivers check it against theirs
      result = await this.sender.send({
        url: row.url,
        body: row.body,
        headers: { 'service-signature': signatureHeader(this.secretOf(row), row.body, t), 'user-agent': 'LeadIntelligence-Webhooks/1.0' },
        timeoutMs: this.config.timeoutMs,
        signal,
      });
    } catch (err) {
      result = { ok: false, status_code: null, error: (err as Error).message, latency_ms: 0 };
    }
    // the receiver is done with this attempt: its endpoint slot goes to the next one while the
    // outcome is recorded; the row stays leased to this claim until then, so nobody resends it
    answered();
    this.log.info(
      { delivery_id: row.id, endpoint_id: row.endpoint_id, event_id: row.event_id, attempt: row.attempts + 1, ok: result.ok, status_code: result.status_code, latency_ms: result.latency_ms },
      'webhook attempt',
    );
    await this.record(row, result);
  }

  /** Outcome of one attempt, recorded with others that finish meanwhile in one transaction. */
  private record(row: Claimed, result: SendResult): Promise<void> {
    const outcome = result.ok ? 'success' : result.status_code === null ? 'no_response' : `http_${Math.floor(result.status_code / 100)}xx`;
    deliveryAttempts.inc({ outcome });
    deliveryLatency.observe({ outcome }, result.latency_ms / 1000);
    return new Promise<void>((resolve, reject) => {
      this.outcomes.push({ row, result, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.outcomes.length > 0) {
        const batch = this.outcomes.splice(0, 500);
        try {
          await this.recordBatch(batch);
          for (const o of batch) o.resolve();
        } catch (err) {
          for (const o of batch) o.reject(err as Error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * Outcomes whose claim is still held (not lost to an expired lease or a deleted endpoint):
   * the delivery's next state, the attempt row, and the endpoints' failure counts in order
   * (a success restarts the count; each delivery failed for good adds one; 100 disable).
   */
  private async recordBatch(batch: Outcome[]): Promise<void> {
    const ids: string[] = [], tokens: string[] = [], attempts: number[] = [], statuses: string[] = [], delays: number[] = [];
    for (const { row, result } of batch) {
      const attempt = row.attempts + 1;
      const finalFailure = !result.ok && attempt >= MAX_ATTEMPTS;
      ids.push(row.id);
      tokens.push(row.claim_token);
      attempts.push(attempt);
      statuses.push(result.ok ? 'succeeded' : finalFailure ? 'failed' : 'pending');
      delays.push(result.ok || finalFailure ? 0 : retryDelayMs(attempt));
    }
    // no wait for the WAL flush: a database crash can lose an outcome, and then the attempt is
    // simply made again (deliveries are at least once); it never loses a delivery
    await withTransaction(this.pool, async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `UPDATE webhook_deliveries d SET attempts = u.attempt, status = u.status, locked_until = NULL, claim_token = NULL,
           next_attempt_at = ${this.clockSql} + u.delay * interval '1 millisecond',
           completed_at = CASE WHEN u.status <> 'pending' THEN now() END
         FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::bigint[]) AS u(id, token, attempt, status, delay)
         WHERE d.id = u.id AND d.claim_token = u.token
         RETURNING d.id`,
        [ids, tokens, attempts, statuses, delays],
      );
      const held = new Set(rows.map((r) => r.id));
      const kept = batch.filter((o) => held.has(o.row.id));
      if (kept.length === 0) return;
      await tx.query(
        `INSERT INTO webhook_attempts (delivery_id, endpoint_id, attempt, status_code, outcome, error, latency_ms)
         SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::text[], $7::int[])
         ON CONFLICT DO NOTHING`,
        [
          kept.map((o) => o.row.id), kept.map((o) => o.row.endpoint_id), kept.map((o) => o.row.attempts + 1),
          kept.map((o) => o.result.status_code), kept.map((o) => (o.result.ok ? 'succeeded' : 'failed')),
          kept.map((o) => o.result.error?.slice(0, 500) ?? null), kept.map((o) => o.result.latency_ms),
        ],
      );
      const counts = new Map<string, { reset: boolean; add: number }>();
      for (const { row, result } of kept) {
        const c = counts.get(row.endpoint_id) ?? { reset: false, add: 0 };
        if (result.ok) counts.set(row.endpoint_id, { reset: true, add: 0 });
        else if (row.attempts + 1 >= MAX_ATTEMPTS) counts.set(row.endpoint_id, { reset: c.reset, add: c.add + 1 });
        else counts.set(row.endpoint_id, c);
      }
      const changed = [...counts].filter(([, c]) => c.reset || c.add > 0);
      if (changed.length === 0) return;
      const { rows: touched } = await tx.query<{ id: string; status: string }>(
        `UPDATE webhook_endpoints e SET
           consecutive_failures = CASE WHEN u.reset THEN u.add ELSE e.consecutive_failures + u.add END,
           status = CASE WHEN (CASE WHEN u.reset THEN u.add ELSE e.consecutive_failures + u.add END) >= $4 THEN 'disabled' ELSE e.status END,
           disabled_at = CASE WHEN e.status = 'enabled' AND (CASE WHEN u.reset THEN u.add ELSE e.consecutive_failures + u.add END) >= $4
             THEN now() ELSE e.disabled_at END
         FROM unnest($1::text[], $2::bool[], $3::int[]) AS u(id, reset, add)
         WHERE e.id = u.id
         RETURNING e.id, e.status`,
        [changed.map(([id]) => id), changed.map(([, c]) => c.reset), changed.map(([, c]) => c.add), DISABLE_AFTER_FAILED_DELIVERIES],
      );
      const disabled = touched.filter((e) => e.status === 'disabled');
      if (disabled.length > 0) {
        // a disabled endpoint receives nothing: its retries are dropped, not kept for later
        await tx.query(
          `UPDATE webhook_deliveries SET status = 'dropped', completed_at = now() WHERE endpoint_id = ANY($1::text[]) AND status = 'pending'`,
          [disabled.map((d) => d.id)],
        );
      }
    }, { asyncCommit: true });
  }
}
