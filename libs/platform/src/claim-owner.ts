import { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { pgClientConfig } from './pg-tls';
import { randomToken } from './ids';
import { runPeriodically } from './periodic';
import type { Queryable } from './db';

/** What a store of claims needs of the process that takes them. */
export interface ClaimOwnerIdentity {
  /** This process's id, recorded on every claim it takes. */
  readonly id: string;
  /** How old a process's heartbeat may get before its claims may be taken over (with its lock free). */
  readonly staleAfterMs: number;
}

export interface ClaimOwnerTiming {
  beatMs: number;
  staleAfterMs: number;
}

/** Which processes' claims: one kind per service, each with its heartbeat table and lock class. */
export interface ClaimOwnerKind {
  /** The service, in the process's id and its session's application_name (claimOwnerSessionName). */
  service: string;
  /** The process id's prefix (`gw`, `srch`). */
  idPrefix: string;
  /** The heartbeat table, `(id text PRIMARY KEY, seen_at timestamptz)`, in the service's database. */
  table: string;
  /** The advisory lock class of these processes' liveness locks (second key: hashtext of the process's id). */
  lockClass: number;
}

/** How long the liveness session may take to connect or to answer one statement. */
const SESSION_TIMEOUT_MS = 5000;

/** The application_name of the connection that holds a process's liveness lock. */
export const claimOwnerSessionName = (service: string, id: string): string => `${service} claim owner ${id}`;

export const CLAIM_OWNER_TIMING: ClaimOwnerTiming = { beatMs: 500, staleAfterMs: 2000 };

/**
 * This process as the owner of the claims it takes (the gateway's Idempotency-Key claims, search's
 * reveal claims; docs/decisions.md, "Idempotency claims of a gateway that died"). It keeps one
 * connection of its own that holds a session advisory lock on its id, and on it writes a heartbeat
 * (`<table>.seen_at`, the database's clock). A process that dies closes the connection and the
 * server drops the lock; its heartbeat goes stale. Another process takes over a claim only when
 * both say its owner is gone (claimOwnerGone): a live process whose event loop or pool is held
 * keeps its lock; one whose connection broke in a failover keeps a fresh heartbeat until it has its
 * lock back on the new primary.
 */
export class ClaimOwner implements ClaimOwnerIdentity, OnApplicationBootstrap, OnApplicationShutdown {
  readonly id: string;
  readonly staleAfterMs: number;
  private readonly beatMs: number;
  private session?: Client;
  private pending?: Promise<Client>;
  private stopBeating?: () => void;

  constructor(
    private readonly databaseUrl: string,
    private readonly kind: ClaimOwnerKind,
    timing: ClaimOwnerTiming = CLAIM_OWNER_TIMING,
  ) {
    this.id = `${kind.idPrefix}_${randomToken(16)}`;
    this.beatMs = timing.beatMs;
    this.staleAfterMs = timing.staleAfterMs;
  }

  async onApplicationBootstrap(): Promise<void> {
    // a database not reachable yet is no reason to refuse to start: the next beats connect
    await this.beat().catch(() => undefined);
    this.stopBeating = runPeriodically(() => this.beat(), this.beatMs);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopBeating?.();
    const session = this.session;
    this.session = undefined;
    // its row stays until its service's sweep: its claims are taken over once its heartbeat is stale,
    // as after a kill, so a request still finishing meanwhile is not run a second time beside it
    await session?.end().catch(() => undefined);
  }

  /**
   * Holds its liveness lock now: a claim taken without it would look like a dead process's at
   * once (the database was away at start-up, or the session broke): connected and locked first.
   */
  async ensureLive(): Promise<void> {
    if (!this.session) await this.beat();
  }

  /** One heartbeat, on the session that holds the lock (connected and locked first when it has none). */
  async beat(): Promise<void> {
    const session = this.session ?? (await this.connecting());
    try {
      // Hand-written: an upsert against the database clock, so the row comes back after a failover to a standby that lacked it.
      await session.query(`INSERT INTO ${this.kind.table} (id, seen_at) VALUES ($1, now()) ON CONFLICT (id) DO UPDATE SET seen_at = now()`, [this.id]);
    } catch (err) {
      // a beat that only timed out (a database slow under load) keeps the session and with it the
      // lock: ending it would make this live process's claims look like a dead one's
      if (!isQueryTimeout(err)) this.drop(session);
      throw err;
    }
  }

  /** One connection attempt at a time: concurrent callers (beats, ensureLive) share it, not each taking a session that finds the lock held by the other. */
  private connecting(): Promise<Client> {
    this.pending ??= this.connect().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async connect(): Promise<Client> {
    // named, so an operator (or a test) finds the session that holds this process's lock in pg_stat_activity
    // bounded, so a database that does not answer holds neither the start-up nor the next beats
    const session = new Client({
      ...pgClientConfig(this.databaseUrl), keepAlive: true, application_name: claimOwnerSessionName(this.kind.service, this.id),
      connectionTimeoutMillis: SESSION_TIMEOUT_MS, query_timeout: SESSION_TIMEOUT_MS,
    });
    session.on('error', () => this.drop(session));
    try {
      await session.connect();
      // a host that vanishes without closing its connections is noticed by the server's keepalives;
      // the session's only writes are beats: each waits for the primary's disk, not the standby's
      // (a beat a failover loses is one missed beat of the four the staleness allows; docs/decisions.md)
      await session.query('SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3; SET synchronous_commit = local');
      // Hand-written: a session-level lock, held for as long as this connection lives.
      const { rows } = await session.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [this.kind.lockClass, this.id]);
      // held by someone else only for the moment another process checks this one's lock: the next beat takes it
      if (!rows[0].ok) throw new Error('claim owner lock taken');
    } catch (err) {
      await session.end().catch(() => undefined);
      throw err;
    }
    this.session = session;
    return session;
  }

  private drop(session: Client): void {
    if (this.session === session) this.session = undefined;
    session.end().catch(() => undefined);
  }
}

/** node-postgres's own error for a statement past the client's query_timeout: the connection itself is fine. */
function isQueryTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === 'Query read timeout';
}

/**
 * SQL true when the owner named by `ownerColumn` has no heartbeat in `kind.table` within
 * `$<staleParam>` ms: it may be gone, which its liveness lock decides (claimOwnerGone).
 */
export function claimOwnerStale(kind: Pick<ClaimOwnerKind, 'table'>, ownerColumn: string, staleParam: number): string {
  return `(${ownerColumn} IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM ${kind.table} o WHERE o.id = ${ownerColumn} AND o.seen_at > now() - $${staleParam} * interval '1 millisecond'))`;
}

/**
 * SQL true when the owner named by `ownerColumn` is gone: stale (claimOwnerStale), and its
 * liveness lock free (tried as a transaction lock, let go when the statement ends).
 * `lockClassParam`: the parameter carrying kind.lockClass.
 */
export function claimOwnerGone(kind: Pick<ClaimOwnerKind, 'table'>, ownerColumn: string, staleParam: number, lockClassParam: number): string {
  return `(${claimOwnerStale(kind, ownerColumn, staleParam)}
    AND pg_try_advisory_xact_lock($${lockClassParam}, hashtext(${ownerColumn})))`;
}

/** Forgets the processes of `kind` whose heartbeat stopped an hour ago (a killed one leaves its row behind). */
export async function forgetGoneClaimOwners(db: Queryable, kind: Pick<ClaimOwnerKind, 'table'>): Promise<void> {
  // Hand-written: a set-based delete by age against the database clock.
  await db.query(`DELETE FROM ${kind.table} WHERE seen_at < now() - interval '1 hour'`);
}
