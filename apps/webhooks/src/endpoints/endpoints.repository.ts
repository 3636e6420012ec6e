import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { Repository } from 'typeorm';
import { RolledWebhookEndpoint, WebhookAttempt, WebhookEndpointStatus } from '@app/contracts';
import { IdempotentCreate, keysetPage, PG_POOL, Queryable } from '@app/platform';
import { DELIVERIES_CHANNEL } from '../dispatch/deliveries.repository';
import { decryptSecret, encryptSecret } from '../secrets';
import { WEBHOOKS_CONFIG, WebhooksConfig } from '../webhooks-config';
import { KeyedChange } from './keyed-change.store';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

export type EndpointRow = Omit<WebhookEndpointEntity, 'disabled_at' | 'previous_secret_enc' | 'previous_secret_expires_at'>;

/** What PATCH /webhook_endpoints/{id} changes; a field left undefined stays as it is. */
export interface EndpointChanges {
  url?: string;
  events?: string[];
  /** Present (null clears it) or undefined (unchanged). */
  description?: string | null;
  status?: WebhookEndpointStatus;
}

/** An attempt as the deliveries list shows it, with its delivery's event and state. */
export interface AttemptRow extends Omit<WebhookAttempt, 'attempted_at' | 'next_attempt_at'> {
  attempted_at: Date;
  next_attempt_at: Date | null;
}

export const ENDPOINT_COLUMNS = 'id, workspace_id, livemode, url, description, events, api_version, secret_enc, status, consecutive_failures, created_at';

@Injectable()
export class EndpointsRepository implements OnApplicationBootstrap, OnApplicationShutdown {
  /** Which endpoint each Idempotency-Key created (webhook_create_keys). */
  readonly createKeys = new IdempotentCreate({ table: 'webhook_create_keys', column: 'endpoint_id' });
  /** Which endpoint's secret each Idempotency-Key rolled, and the answer, sealed: it carries the new secret (webhook_roll_keys). */
  readonly rollKeys: KeyedChange<RolledWebhookEndpoint>;
  private stopSweeping: (() => void)[] = [];

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @InjectRepository(WebhookEndpointEntity) private readonly rows: Repository<WebhookEndpointEntity>,
    @Inject(WEBHOOKS_CONFIG) config: WebhooksConfig,
  ) {
    this.rollKeys = new KeyedChange({ table: 'webhook_roll_keys', column: 'endpoint_id', noun: 'webhook endpoint' }, {
      seal: (answer) => encryptSecret(JSON.stringify(answer), config.secretKey),
      open: (stored) => JSON.parse(decryptSecret(stored, config.secretKey)) as RolledWebhookEndpoint,
    });
  }

  onApplicationBootstrap(): void {
    this.stopSweeping = [this.createKeys.sweepPeriodically(this.pool), this.rollKeys.sweepPeriodically(this.pool)];
  }

  onApplicationShutdown(): void {
    for (const stop of this.stopSweeping) stop();
  }

  async insert(db: Queryable, row: Omit<EndpointRow, 'status' | 'consecutive_failures' | 'created_at'>): Promise<EndpointRow> {
    const { rows } = await db.query<EndpointRow>(
      `INSERT INTO webhook_endpoints (id, workspace_id, livemode, url, description, events, api_version, secret_enc)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${ENDPOINT_COLUMNS}`,
      [row.id, row.workspace_id, row.livemode, row.url, row.description, row.events, row.api_version, row.secret_enc],
    );
    return rows[0];
  }

  /**
   * The workspace's endpoints, counted under a lock on its creates that `tx` holds until it ends:
   * two creates at once cannot both pass a limit.
   */
  async countForCreate(tx: Queryable, workspaceId: string): Promise<number> {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints.create:' || $1, 0))`, [workspaceId]);
    const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1', [workspaceId]);
    return rows[0].n;
  }

  async findById(workspaceId: string | null, id: string, db: Queryable = this.pool): Promise<EndpointRow | undefined> {
    const { rows } = await db.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND ($2::text IS NULL OR workspace_id = $2)`,
      [id, workspaceId],
    );
    return rows[0];
  }

  /**
   * The fields sent, changed in one statement (SET reads the row as it was). Switching a disabled
   * endpoint on restarts its failure count (spec: states and transitions); switching it off
   * stamps `disabled_at`. Undefined when the workspace has no such endpoint.
   */
  async update(db: Queryable, workspaceId: string, id: string, changes: EndpointChanges): Promise<EndpointRow | undefined> {
    const { rows } = await db.query<EndpointRow>(
      `UPDATE webhook_endpoints SET
         url = coalesce($3, url),
         events = coalesce($4::text[], events),
         description = CASE WHEN $5::bool THEN $6 ELSE description END,
         status = coalesce($7, status),
         consecutive_failures = CASE WHEN $7 = 'enabled' AND status = 'disabled' THEN 0 ELSE consecutive_failures END,
         disabled_at = CASE WHEN $7 = 'enabled' THEN NULL WHEN $7 = 'disabled' AND status = 'enabled' THEN now() ELSE disabled_at END
       WHERE id = $1 AND workspace_id = $2
       RETURNING ${ENDPOINT_COLUMNS}`,
      [id, workspaceId, changes.url ?? null, changes.events ?? null, changes.description !== undefined, changes.description ?? null, changes.status ?? null],
    );
    return rows[0];
  }

  /**
   * A new signing secret; the one it replaces keeps signing (a second `v1`) for `graceMs`, and the
   * one before that is forgotten. Undefined when the workspace has no such endpoint.
   */
  async rollSecret(
    db: Queryable, workspaceId: string, id: string, secretEnc: string, graceMs: number,
  ): Promise<(EndpointRow & { previous_secret_expires_at: Date }) | undefined> {
    const { rows } = await db.query<EndpointRow & { previous_secret_expires_at: Date }>(
      `UPDATE webhook_endpoints SET previous_secret_enc = secret_enc, secret_enc = $3,
         previous_secret_expires_at = date_trunc('milliseconds', now()) + $4 * interval '1 millisecond'
       WHERE id = $1 AND workspace_id = $2
       RETURNING ${ENDPOINT_COLUMNS}, previous_secret_expires_at`,
      [id, workspaceId, secretEnc, graceMs],
    );
    return rows[0];
  }

  /** Newest first, keyset on the time-ordered id; one extra row to learn `has_more`. */
  async list(workspaceId: string, limit: number, startingAfter?: string): Promise<EndpointRow[]> {
    return this.rows.find(keysetPage<WebhookEndpointEntity>({ workspace_id: workspaceId }, startingAfter, limit));
  }

  /** Deleting cascades to its deliveries: pending retries are gone with it. */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    if (typeof id !== 'string') return false; // no such endpoint (TypeORM refuses an undefined id)
    const { affected } = await this.rows.delete({ workspace_id: workspaceId, id });
    return affected === 1;
  }

  async enable(id: string): Promise<EndpointRow | undefined> {
    if (typeof id !== 'string') return undefined; // no such endpoint (TypeORM refuses an undefined id)
    const { affected } = await this.rows.update({ id }, { status: 'enabled', consecutive_failures: 0, disabled_at: null });
    if (affected !== 1) return undefined;
    return (await this.rows.findOneBy({ id })) ?? undefined;
  }

  /** The endpoint's latest attempts, newest first. */
  async attempts(endpointId: string, limit: number): Promise<AttemptRow[]> {
    const { rows } = await this.pool.query<AttemptRow>(
      `SELECT a.delivery_id, d.event_id, d.event_type, a.attempt, a.attempted_at, a.status_code, a.outcome, a.error, a.latency_ms,
              d.status AS delivery_status, CASE WHEN d.status = 'pending' THEN d.next_attempt_at END AS next_attempt_at
       FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE a.endpoint_id = $1 ORDER BY a.attempted_at DESC, a.attempt DESC LIMIT $2`,
      [endpointId, limit],
    );
    return rows;
  }

  /** Tests only: moves the retry clock forward by `ms` and wakes the senders; returns the whole offset. */
  async advanceTestClock(ms: number): Promise<number> {
    const { rows } = await this.pool.query<{ offset_ms: string }>(
      `INSERT INTO webhook_test_clock (id, offset_ms) VALUES (1, $1)
       ON CONFLICT (id) DO UPDATE SET offset_ms = webhook_test_clock.offset_ms + EXCLUDED.offset_ms RETURNING offset_ms`,
      [ms],
    );
    await this.pool.query(`NOTIFY ${DELIVERIES_CHANNEL}`);
    return Number(rows[0].offset_ms);
  }
}
