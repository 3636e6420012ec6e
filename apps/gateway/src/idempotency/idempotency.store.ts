import { createHash } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import { KeyMode } from '@app/contracts';
import { onFreshConnection, PG_POOL, runPeriodically, SERVICE_CONFIG } from '@app/platform';
import { GatewayConfig } from '../config';

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in_progress' }
  | { kind: 'mismatch' };


/** Canonical JSON: the same body however its keys were ordered or spaced. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${url}\n${canonical(body)}`).digest('hex');
}

/**
 * Whose records a key is looked up among: the workspace and the API key's mode, so a test key
 * never replays what a live key produced (nor the other way round), while two live keys of one
 * workspace share their Idempotency-Keys.
 */
export interface IdempotencyScope {
  workspaceId: string;
  mode: KeyMode;
}

/**
 * The key a service records a create under (RequestContext.idempotency): the client's key in the
 * same scope as the gateway's record, as the service scopes its records by workspace only.
 */
export function scopedServiceKey(mode: KeyMode, key: string): string {
  return `${mode}:${key}`;
}

/**
 * Idempotency records in the gateway's database, scoped by workspace and key mode, valid 24
 * hours. The primary key makes one request win the claim; the others see it in progress (409).
 */
@Injectable()
export class IdempotencyStore implements OnApplicationBootstrap, OnApplicationShutdown {
  private stopSweeping?: () => void;
  /**
   * How long a claim may stay unfinished before it counts as abandoned by a crashed replica:
   * longer than a live gateway holds one (its request's service calls, each within the RPC
   * deadline, and the database), and no longer, so a client retrying a create that was in flight
   * when its gateway was killed is not answered 409 long after the service answered.
   */
  private readonly abandonedAfterMs: number;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_CONFIG) config: GatewayConfig,
  ) {
    this.abandonedAfterMs = 3 * config.rpcTimeoutMs + 5000;
  }

  onApplicationBootstrap(): void {
    this.stopSweeping = runPeriodically(() => this.sweep(), 60 * 60 * 1000);
  }

  onApplicationShutdown(): void {
    this.stopSweeping?.();
  }

  async claim(scope: IdempotencyScope, key: string, fingerprint: string): Promise<Claim> {
    // Hand-written: the claim is one upsert whose conditional DO UPDATE takes over an expired or abandoned record atomically.
    // Tried again on a broken connection: a first try that did take the claim is found in progress (409), nothing runs twice.
    const claimed = await onFreshConnection(() => this.pool.query(
      `INSERT INTO idempotency_keys AS i (workspace_id, mode, key, request_hash, status)
       VALUES ($1, $2, $3, $4, 'in_progress')
       ON CONFLICT (workspace_id, mode, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, status = 'in_progress', response_status = NULL,
             response_body = NULL, created_at = now()
         WHERE i.created_at < now() - interval '24 hours'
            OR (i.status = 'in_progress' AND i.created_at < now() - $5 * interval '1 millisecond')
       RETURNING 1`,
      [scope.workspaceId, scope.mode, key, fingerprint, this.abandonedAfterMs],
    ), { idempotent: true });
    if (claimed.rowCount === 1) return { kind: 'claimed' };
    // Hand-written: on the path of every POST with an Idempotency-Key, beside the claim it follows.
    const { rows } = await onFreshConnection(() => this.pool.query<{ request_hash: string; status: string; response_status: number; response_body: string }>(
      'SELECT request_hash, status, response_status, response_body FROM idempotency_keys WHERE workspace_id = $1 AND mode = $2 AND key = $3',
      [scope.workspaceId, scope.mode, key],
    ), { idempotent: true });
    const record = rows[0];
    if (!record) return this.claim(scope, key, fingerprint); // released meanwhile
    if (record.request_hash !== fingerprint) return { kind: 'mismatch' };
    if (record.status !== 'done') return { kind: 'in_progress' };
    return { kind: 'replay', status: record.response_status, body: record.response_body };
  }

  async complete(scope: IdempotencyScope, key: string, status: number, body: string): Promise<void> {
    // Hand-written: on the path of every POST with an Idempotency-Key, one statement without entity loading.
    // Tried again on a broken connection: it sets the same values however often it runs.
    await onFreshConnection(() => this.pool.query(
      `UPDATE idempotency_keys SET status = 'done', response_status = $4, response_body = $5 WHERE workspace_id = $1 AND mode = $2 AND key = $3`,
      [scope.workspaceId, scope.mode, key, status, body],
    ), { idempotent: true });
  }

  /** A server-side failure is not recorded: the client may retry with the same key. */
  async release(scope: IdempotencyScope, key: string): Promise<void> {
    // Hand-written: deletes only a claim still in progress, a condition the entity API cannot put on a delete.
    // Not idempotent (once released, the key may be claimed by another request before a second run would
    // delete that claim): tried again only when the first surely did nothing.
    await onFreshConnection(() => this.pool.query(`DELETE FROM idempotency_keys WHERE workspace_id = $1 AND mode = $2 AND key = $3 AND status = 'in_progress'`, [
      scope.workspaceId,
      scope.mode,
      key,
    ]), { idempotent: false });
  }

  async sweep(): Promise<void> {
    // Hand-written: a set-based delete by age against the database clock.
    await this.pool.query(`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`);
  }
}
