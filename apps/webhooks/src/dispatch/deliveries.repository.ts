import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import { ApiVersion, WebhookDelivery } from '@app/contracts';
import { backlogGauge, IdempotentCreate, listenOn, PG_POOL, Queryable, TraceCarrier } from '@app/platform';
import { KeyedChange } from '../endpoints/keyed-change.store';
import { WEBHOOKS_CONFIG, WebhooksConfig } from '../webhooks-config';
import { AttemptOfDelivery, DELIVERY_COLUMNS, DeliveryRow } from './delivery.mapper';
import { Candidate } from './endpoint-slots';

/** NOTIFY channel: deliveries were recorded that no sender has claimed yet. */
export const DELIVERIES_CHANNEL = 'webhook_deliveries';

/** The retry clock in SQL: the database's now, moved by the test offset when that is switched on. */
export function retryClockSql(config: Pick<WebhooksConfig, 'testClock'>): string {
  return config.testClock
    ? `(now() + coalesce((SELECT offset_ms FROM webhook_test_clock WHERE id = 1), 0) * interval '1 millisecond')`
    : 'now()';
}

/** A delivery claimed by this process, with what its attempt needs. */
export interface Claimed {
  id: string;
  endpoint_id: string;
  event_id: string;
  body: string;
  attempts: number;
  url: string;
  secret_enc: string;
  /** A rolled secret's predecessor within its grace period, which signs too; else null. */
  previous_secret_enc: string | null;
  claim_token: string;
  /** The trace and request id of the event's publication (fanout.consumer.ts). */
  trace_context: TraceCarrier | null;
  /** Attempts it gets at most; null: the retry schedule's. */
  max_attempts: number | null;
}

export interface EndpointMatch {
  id: string;
  workspace_id: string;
  events: string[];
  api_version: ApiVersion;
  url: string;
  secret_enc: string;
  previous_secret_enc: string | null;
}

/** The predecessor of a rolled secret while its grace period lasts (real time, as `t` is), else null. */
const PREVIOUS_SECRET_SQL = `CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_enc END AS previous_secret_enc`;

/** A delivery row the fan-out makes; with a token it is made already claimed by this process. */
export interface NewDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  event_created: string;
  body: string;
  claim_token: string | null;
  trace_context: TraceCarrier | null;
}

/**
 * The statements that make and claim webhook_deliveries rows. Claims are leases: a token and a
 * `locked_until`, so only the holder records the attempt's outcome and a dead holder's lapse.
 */
@Injectable()
export class DeliveriesRepository implements OnApplicationBootstrap, OnApplicationShutdown {
  /** Which sample delivery each Idempotency-Key of POST /webhook_endpoints/{id}/test made (webhook_test_keys). */
  readonly testKeys = new IdempotentCreate({ table: 'webhook_test_keys', column: 'delivery_id', noun: 'sample delivery' });
  /** Which delivery each Idempotency-Key of POST .../deliveries/{id}/retry sent again, and the answer (webhook_retry_keys). */
  readonly retryKeys = new KeyedChange<WebhookDelivery>(
    { table: 'webhook_retry_keys', column: 'delivery_id', noun: 'webhook delivery' },
    { seal: (answer) => JSON.stringify(answer), open: (stored) => JSON.parse(stored) as WebhookDelivery },
  );
  private stopSweeping: (() => void)[] = [];

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.stopSweeping = [this.testKeys.sweepPeriodically(this.pool), this.retryKeys.sweepPeriodically(this.pool)];
  }

  onApplicationShutdown(): void {
    for (const stop of this.stopSweeping) stop();
  }

  /**
   * Calls `onUnclaimed` on every NOTIFY of DELIVERIES_CHANNEL, on a connection of the pool held
   * for it; `onError` when that connection fails. Returns its close.
   */
  listenForUnclaimed(onUnclaimed: () => void, onError: (err: Error) => void): Promise<() => Promise<void>> {
    return listenOn(this.pool, DELIVERIES_CHANNEL, onUnclaimed, onError);
  }

  private get clockSql(): string {
    return retryClockSql(this.config);
  }

  observeBacklog(): void {
    backlogGauge('webhook_deliveries_due', 'Webhook deliveries pending whose attempt is due now (new, or retries whose delay has passed)', this.pool,
      `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ${this.clockSql}`);
  }

  /** Due, unclaimed deliveries, oldest first, leaving out the endpoints that have no slot left. */
  async dueCandidates(skipEndpoints: string[], limit: number): Promise<Candidate[]> {
    const { rows } = await this.pool.query<Candidate>(
      `SELECT id, endpoint_id FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at <= ${this.clockSql}
         AND (locked_until IS NULL OR locked_until < now()) AND NOT (endpoint_id = ANY($1::text[]))
       ORDER BY next_attempt_at LIMIT $2`,
      [skipEndpoints, limit],
    );
    return rows;
  }

  /**
   * Leases those of `ids` still due and unclaimed, of enabled endpoints, under `token`.
   * Hand-written: FOR UPDATE SKIP LOCKED lets replicas claim side by side without ever holding
   * the same attempt, in one statement that is its own transaction. Its commit waits for no WAL
   * flush (the one-time filter sets synchronous_commit off for this transaction only): only a
   * database crash could lose the claim, and then the attempt is made again once more (at least
   * once), never skipped.
   */
  async claim(ids: string[], token: string, leaseSeconds: number): Promise<Claimed[]> {
    const { rows } = await this.pool.query<Claimed>(
      `UPDATE webhook_deliveries d SET locked_until = now() + $3 * interval '1 second', claim_token = $2
       FROM webhook_endpoints e
       WHERE (SELECT set_config('synchronous_commit', 'off', true)) = 'off'
         AND d.id IN (
           SELECT id FROM webhook_deliveries WHERE id = ANY($1::text[]) AND status = 'pending'
             AND (locked_until IS NULL OR locked_until < now()) AND next_attempt_at <= ${this.clockSql}
           FOR UPDATE SKIP LOCKED)
         AND e.id = d.endpoint_id AND e.status = 'enabled'
       RETURNING d.id, d.endpoint_id, d.event_id, d.body, d.attempts, e.url, e.secret_enc, ${PREVIOUS_SECRET_SQL}, d.claim_token, d.trace_context,
         d.max_attempts`,
      [ids, token, leaseSeconds],
    );
    return rows;
  }

  /** The events of `eventIds` the consumer had not processed yet, now marked processed (in `tx`). */
  async markProcessed(tx: Queryable, consumer: string, eventIds: string[]): Promise<string[]> {
    const { rows } = await tx.query<{ event_id: string }>(
      `INSERT INTO processed_events (consumer, event_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING RETURNING event_id`,
      [consumer, eventIds],
    );
    return rows.map((r) => r.event_id);
  }

  async enabledEndpointsOf(tx: Queryable, workspaceIds: string[]): Promise<EndpointMatch[]> {
    const { rows } = await tx.query<EndpointMatch>(
      `SELECT id, workspace_id, events, api_version, url, secret_enc, ${PREVIOUS_SECRET_SQL} FROM webhook_endpoints e
       WHERE workspace_id = ANY($1::text[]) AND status = 'enabled'`,
      [workspaceIds],
    );
    return rows;
  }

  /**
   * The deliveries of a fan-out batch in one INSERT over unnest (hand-written: thousands of rows a
   * second), those with a token leased for `leaseSeconds`. Returns the ids of the rows made: a
   * delivery of an event and endpoint that exists already is not made again.
   */
  async insertDeliveries(tx: Queryable, deliveries: NewDelivery[], leaseSeconds: number): Promise<string[]> {
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, event_created, body, claim_token, locked_until, trace_context)
       SELECT u.id, u.endpoint_id, u.event_id, u.event_type, u.event_created, u.body, u.token,
              CASE WHEN u.token IS NULL THEN NULL ELSE now() + $8 * interval '1 second' END, u.trace::json
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[], $9::text[])
         AS u(id, endpoint_id, event_id, event_type, event_created, body, token, trace)
       ON CONFLICT (event_id, endpoint_id) DO NOTHING
       RETURNING id`,
      [
        deliveries.map((d) => d.id), deliveries.map((d) => d.endpoint_id), deliveries.map((d) => d.event_id), deliveries.map((d) => d.event_type),
        deliveries.map((d) => d.event_created), deliveries.map((d) => d.body), deliveries.map((d) => d.claim_token), leaseSeconds,
        deliveries.map((d) => d.trace_context && JSON.stringify(d.trace_context)),
      ],
    );
    return rows.map((r) => r.id);
  }

  /** A delivery that gets at most `max` attempts instead of the retry schedule's (a sample). */
  async limitAttempts(tx: Queryable, deliveryId: string, max: number): Promise<void> {
    await tx.query('UPDATE webhook_deliveries SET max_attempts = $2 WHERE id = $1', [deliveryId, max]);
  }

  /** An endpoint's deliveries, newest first, keyset on the time-ordered id; one extra row to learn `has_more`. */
  async listOfEndpoint(endpointId: string, limit: number, below?: string): Promise<DeliveryRow[]> {
    const { rows } = await this.pool.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
       WHERE endpoint_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
      [endpointId, below ?? null, limit + 1],
    );
    return rows;
  }

  /** The attempts of these deliveries, each delivery's in order. */
  async attemptsOf(deliveryIds: string[], db: Queryable = this.pool): Promise<AttemptOfDelivery[]> {
    if (deliveryIds.length === 0) return [];
    const { rows } = await db.query<AttemptOfDelivery>(
      `SELECT delivery_id, attempt, attempted_at, outcome, status_code, error, latency_ms FROM webhook_attempts
       WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, attempt`,
      [deliveryIds],
    );
    return rows;
  }

  /**
   * The delivery due again now (pending, on the retry clock), unless an attempt of it is in flight
   * (a lease held): then it is left as it is. Returns the row and whether it was made due;
   * undefined when the endpoint has no such delivery.
   */
  async retryNow(db: Queryable, endpointId: string, deliveryId: string): Promise<{ row: DeliveryRow; due: boolean } | undefined> {
    const { rows } = await db.query<DeliveryRow>(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${this.clockSql}, completed_at = NULL, locked_until = NULL, claim_token = NULL
       WHERE id = $1 AND endpoint_id = $2 AND (locked_until IS NULL OR locked_until < now())
       RETURNING ${DELIVERY_COLUMNS}`,
      [deliveryId, endpointId],
    );
    if (rows[0]) {
      await this.notifyUnclaimed(db);
      return { row: rows[0], due: true };
    }
    const held = await this.findOfEndpoint(endpointId, deliveryId, db);
    return held && { row: held, due: false };
  }

  async findOfEndpoint(endpointId: string, deliveryId: string, db: Queryable = this.pool): Promise<DeliveryRow | undefined> {
    const { rows } = await db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2`, [deliveryId, endpointId],
    );
    return rows[0];
  }

  /** Wakes the senders of every replica (at the commit of `db`'s transaction). */
  async notifyUnclaimed(db: Queryable): Promise<void> {
    await db.query(`NOTIFY ${DELIVERIES_CHANNEL}`);
  }
}
