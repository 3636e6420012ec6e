import { createHash } from 'node:crypto';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import { RequestContext } from '@app/contracts';
import { claimOwnerGone, forgetGoneClaimOwners, onFreshConnection, PG_POOL, randomToken, rootLogger, runPeriodically, SecretBox, SERVICE_CONFIG } from '@app/platform';
import { GatewayConfig } from '../config';
import { CLAIM_OWNER_LOCK_CLASS, ClaimOwner, ClaimOwnerIdentity, GATEWAY_CLAIM_OWNERS } from './claim-owner.store';

export type Claim =
  /** `token` names this claim: its completion or release touches it and no later claim of the key. */
  | { kind: 'claimed'; token: string }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in_progress' }
  | { kind: 'mismatch' }
  /** Answered while the API key could do other things than it can now (another role, plan or lenses). */
  | { kind: 'other_grants' };


/** At most this many settlings wait to be tried again; past it a claim is left to the age rule. */
const MAX_UNSETTLED = 10_000;

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
 * Whose records a key is looked up among: the API key's own. Another key of the workspace (a
 * member's beside an admin's, a test key beside a live one) never replays an answer made for this
 * one; it asks afresh and is authorized for itself. `grants` is what the key may do (its member's
 * role, the plan and its lenses): a record answers only while they are the same, so a replay never
 * gives a key what it could no longer be answered.
 */
export interface IdempotencyScope {
  workspaceId: string;
  keyId: string;
  grants: string;
}

/** What a request's key may do, as the gateway's authorization reads it: role, plan and lenses. */
export function grantsOf(ctx: Pick<RequestContext, 'member_role' | 'plan' | 'lenses'>): string {
  return `${ctx.member_role} ${ctx.plan} ${[...ctx.lenses].sort().join(',')}`;
}

/**
 * The key a service records a create under (RequestContext.idempotency): the client's key in the
 * same scope as the gateway's record, the API key that asked, as the service scopes its records by
 * workspace only. A create another key of the workspace made with the same Idempotency-Key is
 * never its answer (an endpoint's signing secret among them).
 */
export function scopedServiceKey(keyId: string, key: string): string {
  return `${keyId}:${key}`;
}

/**
 * Idempotency records in the gateway's database, scoped by the API key that asked, valid 24
 * hours. The primary key makes one request win the claim; the others see it in progress (409).
 * A claim records the gateway process that took it (ClaimOwner): when that process is gone (its
 * liveness lock free and its heartbeat stale), a request with the key takes the claim over and
 * runs; the services record what a keyed create made under the key (IdempotentCreate, reveals,
 * enrollments), so the second run answers what the first one made. Only the owner completes or
 * releases its claim, so a process that was taken over from cannot overwrite its successor's.
 */
@Injectable()
export class IdempotencyStore implements OnApplicationBootstrap, OnApplicationShutdown {
  private stopSweeping?: () => void;
  private stopSettling?: () => void;
  /** Settlings of this process's claims that failed, by claim token, tried again every second. */
  private readonly unsettled = new Map<string, () => Promise<void>>();
  /**
   * How long a claim may stay unfinished before it counts as abandoned whoever holds it: longer
   * than a live gateway holds one (its request's service calls, each within the RPC deadline, and
   * the database). A claim whose owner died is taken over long before (ClaimOwner); this covers
   * claims without an owner and an owner that looks alive but never finishes.
   */
  private readonly abandonedAfterMs: number;
  /**
   * Every stored answer is sealed, whatever it holds: some carry a secret shown once (an
   * endpoint's signing secret, on create and on roll), and a rule for every answer cannot miss
   * one a new route adds.
   */
  private readonly box: SecretBox;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_CONFIG) config: GatewayConfig,
    @Inject(ClaimOwner) private readonly owner: ClaimOwnerIdentity,
  ) {
    this.abandonedAfterMs = 3 * config.rpcTimeoutMs + 5000;
    this.box = new SecretBox(config.idempotencySecretKey);
  }

  onApplicationBootstrap(): void {
    this.stopSweeping = runPeriodically(() => this.sweep(), 60 * 60 * 1000);
    this.stopSettling = runPeriodically(() => this.settleLater(), 1000);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopSweeping?.();
    this.stopSettling?.();
    await this.settleLater();
  }

  async claim(scope: IdempotencyScope, key: string, fingerprint: string): Promise<Claim> {
    const token = randomToken(16);
    // Hand-written: the claim is one upsert whose conditional DO UPDATE takes over an expired or abandoned record atomically.
    // Tried again on a broken connection: a first try that did take the claim is found in progress (409), nothing runs twice.
    // A claim in progress is taken over when its owner is gone: no fresh heartbeat, and its liveness
    // lock free (tried as a transaction lock, let go when the statement ends), or when it is older
    // than any live gateway holds one (a claim without an owner, or an owner that looks alive but never finishes).
    const claimed = await onFreshConnection(() => this.pool.query(
      `INSERT INTO idempotency_records AS i (key_id, key, workspace_id, grants, request_hash, status, owner, claim)
       VALUES ($1, $2, $3, $4, $5, 'in_progress', $7, $10)
       ON CONFLICT (key_id, key) DO UPDATE
         SET grants = EXCLUDED.grants, request_hash = EXCLUDED.request_hash, status = 'in_progress', response_status = NULL,
             response_body = NULL, created_at = now(), owner = EXCLUDED.owner, claim = EXCLUDED.claim
         WHERE i.created_at < now() - interval '24 hours'
            OR (i.status = 'in_progress' AND (
                 i.created_at < now() - $6 * interval '1 millisecond'
                 OR ${claimOwnerGone(GATEWAY_CLAIM_OWNERS, 'i.owner', 8, 9)}))
       RETURNING 1`,
      [scope.keyId, key, scope.workspaceId, scope.grants, fingerprint, this.abandonedAfterMs, this.owner.id, this.owner.staleAfterMs, CLAIM_OWNER_LOCK_CLASS, token],
    ), { idempotent: true });
    if (claimed.rowCount === 1) return { kind: 'claimed', token };
    // Hand-written: on the path of every POST with an Idempotency-Key, beside the claim it follows.
    const { rows } = await onFreshConnection(() => this.pool.query<{ request_hash: string; grants: string; status: string; response_status: number; response_body: string; claim: string | null }>(
      'SELECT request_hash, grants, status, response_status, response_body, claim FROM idempotency_records WHERE key_id = $1 AND key = $2',
      [scope.keyId, key],
    ), { idempotent: true });
    const record = rows[0];
    if (!record) return this.claim(scope, key, fingerprint); // released meanwhile
    if (record.request_hash !== fingerprint) return { kind: 'mismatch' };
    if (record.status !== 'done') return { kind: 'in_progress' };
    if (record.grants !== scope.grants) return { kind: 'other_grants' };
    const body = this.open(record.response_body);
    if (body === undefined) {
      // sealed under another IDEMPOTENCY_SECRET_KEY: no answer to give, so the request runs again,
      // and the services answer a keyed create with what the first run made
      await this.forget(scope, key, record.claim);
      return this.claim(scope, key, fingerprint);
    }
    return { kind: 'replay', status: record.response_status, body };
  }

  private open(sealed: string): string | undefined {
    try {
      return this.box.open(sealed);
    } catch {
      return undefined;
    }
  }

  private async forget(scope: IdempotencyScope, key: string, claim: string | null): Promise<void> {
    // Hand-written: deletes this one settled record only, never a claim taken meanwhile.
    // Tried again on a broken connection: a second run finds nothing to delete.
    await onFreshConnection(() => this.pool.query(
      `DELETE FROM idempotency_records WHERE key_id = $1 AND key = $2 AND claim IS NOT DISTINCT FROM $3 AND status = 'done'`,
      [scope.keyId, key, claim],
    ), { idempotent: true });
  }

  async complete(scope: IdempotencyScope, key: string, token: string, status: number, body: string): Promise<void> {
    // Hand-written: on the path of every POST with an Idempotency-Key, one statement without entity loading.
    // Tried again on a broken connection: it sets the same values however often it runs, on this claim only
    // (one another gateway took over meanwhile is left as it is).
    await onFreshConnection(() => this.pool.query(
      `UPDATE idempotency_records SET status = 'done', response_status = $4, response_body = $5
       WHERE key_id = $1 AND key = $2 AND claim = $3 AND status = 'in_progress'`,
      [scope.keyId, key, token, status, this.box.seal(body)],
    ), { idempotent: true });
  }

  /** A server-side failure is not recorded: the client may retry with the same key. */
  async release(scope: IdempotencyScope, key: string, token: string): Promise<void> {
    // Hand-written: deletes only this claim while still in progress, a condition the entity API cannot put on a delete.
    // Tried again on a broken connection: a second run finds nothing of this claim to delete.
    await onFreshConnection(() => this.pool.query(
      `DELETE FROM idempotency_records WHERE key_id = $1 AND key = $2 AND claim = $3 AND status = 'in_progress'`,
      [scope.keyId, key, token],
    ), { idempotent: true });
  }

  /**
   * Completes (an answer below 500) or releases (a 5xx) a claim this process took. When the
   * database does not take it (a failover), it is tried again every second in the background, so
   * the client's retry meets the recorded answer or a free key soon after the database is back,
   * not a claim "in progress" until the age rule frees it; the answer itself goes out meanwhile.
   */
  async settle(scope: IdempotencyScope, key: string, token: string, status: number, body: string): Promise<void> {
    const settle = () => (status >= 500 ? this.release(scope, key, token) : this.complete(scope, key, token, status, body));
    try {
      await settle();
    } catch (err) {
      if (this.unsettled.size >= MAX_UNSETTLED) return;
      rootLogger().warn({ err: (err as Error).message, workspace_id: scope.workspaceId }, 'idempotency: a key could not be settled now; trying again in the background');
      this.unsettled.set(token, settle);
    }
  }

  /** One pass over the claims whose settling failed: each one done is forgotten. */
  async settleLater(): Promise<void> {
    for (const [token, settle] of [...this.unsettled]) {
      try {
        await settle();
        this.unsettled.delete(token);
      } catch {
        return; // the database still does not take it: the next pass
      }
    }
  }

  async sweep(): Promise<void> {
    // Hand-written: a set-based delete by age against the database clock.
    await this.pool.query(`DELETE FROM idempotency_records WHERE created_at < now() - interval '24 hours'`);
    // where gateways of the previous release record their keys during a rollout: no longer read
    // here, its answers are kept no longer than these
    await this.pool.query(`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`);
    await forgetGoneClaimOwners(this.pool, GATEWAY_CLAIM_OWNERS);
  }
}
