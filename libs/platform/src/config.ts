import type { ServiceName } from '@app/contracts/subjects';
import { ConfigError } from './config-error';
import { NatsConnectSettings, natsServers, readNatsSettings } from './nats-auth';
import { readPgTls } from './pg-tls';

export interface ServiceConfig {
  service: ServiceName;
  databaseUrl: string;
  natsUrl: string;
  /** This service's NATS identity, credentials and TLS (nats-auth.ts). */
  nats: NatsConnectSettings;
  httpPort: number;
  httpHost: string;
  rpcTimeoutMs: number;
  /**
   * Deadline of one attempt of a request that may be retried (a read, a keyed write: see
   * retryPolicyOf in @app/contracts); past it the request is asked again of the queue group,
   * within rpcTimeoutMs.
   */
  rpcAttemptTimeoutMs: number;
  logLevel: string;
  /** How often a service checks that its database answers (it leaves its queue groups while not). */
  dbProbeIntervalMs: number;
  /** How long a stopping process waits for the requests it holds before it closes anyway. */
  shutdownGraceMs: number;
  /** The most a (re)started process spends warming its paths before it joins its queue groups (warm-up.ts); 0: no warm-up. */
  warmUpDeadlineMs: number;
  /** Tries and waits of the service's durable event consumers. */
  eventRetry: EventRetrySettings;
  pool: PoolSettings;
}

export const DEFAULT_HTTP_PORTS: Record<ServiceName, number> = {
  gateway: 3000,
  search: 3101,
  crm: 3102,
  sequences: 3103,
  billing: 3104,
  webhooks: 3105,
};

export { ConfigError } from './config-error';

/**
 * A signing or sealing secret. With `NODE_ENV=production` it is required (at least
 * `minLength` characters, never the public development value): the process refuses to start and
 * names the variable. Elsewhere the development value stands in, so a laptop needs no setup.
 */
export function secretSetting(env: NodeJS.ProcessEnv, name: string, developmentValue: string, minLength = 32): string {
  const value = env[name];
  if (env.NODE_ENV === 'production') {
    if (!value) throw new ConfigError(`${name} is required when NODE_ENV=production`);
    if (value === developmentValue) throw new ConfigError(`${name} is the public development value: set a long random secret`);
    if (value.length < minLength) throw new ConfigError(`${name} must be at least ${minLength} characters when NODE_ENV=production`);
  }
  return value || developmentValue;
}

/** An integer setting within [min, max]; unset or empty gives the fallback, anything else is a ConfigError. */
export function envInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** Settings of every PostgreSQL pool of a process (db.ts poolConfig). */
export interface PoolSettings {
  /** Connections per pool (PG_POOL_MAX). */
  max: number;
  /**
   * `effective_io_concurrency` of every pooled connection (PG_EFFECTIVE_IO_CONCURRENCY, default 64;
   * empty: null, the server's own, for a pooler that refuses startup options).
   */
  effectiveIoConcurrency: number | null;
  /** How long a pooled connection may sit idle before the pool closes it (PG_POOL_IDLE_MS, default 30000). */
  idleMs?: number;
  /**
   * Connections the pool keeps open however long they sit idle (PG_POOL_KEEP; node-postgres's
   * `min`): only those above it are closed after `idleMs`. Default 0, and all of the pool
   * (PG_POOL_MAX) for search (POOL_KEPT_BY_DEFAULT).
   */
  keep?: number;
}

/**
 * The services whose pools keep every connection by default (PG_POOL_KEEP = PG_POOL_MAX): search,
 * whose page reads touch a new part of PostgreSQL's `shared_buffers` with nearly every first-time
 * page. A backend takes a minor page fault on its first touch of each 4 KB of shared memory (no
 * huge pages), about 13 us each, once in its life; a backend closed after a lull and opened again
 * pays them all again (docs/decisions.md, "search keeps its PostgreSQL connections").
 */
const POOL_KEPT_BY_DEFAULT: ReadonlySet<ServiceName> = new Set(['search']);

export function poolSettings(env: NodeJS.ProcessEnv = process.env, service?: ServiceName): PoolSettings {
  const io = env.PG_EFFECTIVE_IO_CONCURRENCY ?? '64';
  const max = envInt(env, 'PG_POOL_MAX', 10, 1, 10_000);
  return {
    max,
    // PostgreSQL accepts 0..1000
    effectiveIoConcurrency: io === '' ? null : envInt(env, 'PG_EFFECTIVE_IO_CONCURRENCY', 64, 0, 1000),
    idleMs: envInt(env, 'PG_POOL_IDLE_MS', 30_000, 100, 3_600_000),
    keep: envInt(env, 'PG_POOL_KEEP', service !== undefined && POOL_KEPT_BY_DEFAULT.has(service) ? max : 0, 0, max),
  };
}

/** How often a durable consumer tries an event, and how long it waits between tries. */
export interface EventRetrySettings {
  /** Deliveries of one event before it goes to the dead-letter store (EVENT_MAX_DELIVER). */
  maxDeliver: number;
  /** Wait after the n-th failed delivery (EVENT_BACKOFF); the last value repeats. */
  backoffMs: number[];
}

export const DEFAULT_EVENT_MAX_DELIVER = 8;
export const DEFAULT_EVENT_BACKOFF = '1s,5s,30s,2m,10m';
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
/** nats-server keeps a nak delay as a duration; a day is far beyond any sensible wait. */
const MAX_BACKOFF_MS = 24 * 3_600_000;

function parseBackoff(raw: string): number[] {
  const values = raw.split(',').map((part) => part.trim());
  return values.map((part) => {
    const match = /^(\d+)(ms|s|m|h)$/.exec(part);
    const ms = match ? Number(match[1]) * UNIT_MS[match[2]] : NaN;
    if (!(ms > 0 && ms <= MAX_BACKOFF_MS)) {
      throw new ConfigError(`EVENT_BACKOFF must be a comma-separated list of durations such as 500ms, 5s, 2m, 1h (each above 0, at most 24h), got "${raw}"`);
    }
    return ms;
  });
}

export function eventRetrySettings(env: NodeJS.ProcessEnv = process.env): EventRetrySettings {
  return {
    maxDeliver: envInt(env, 'EVENT_MAX_DELIVER', DEFAULT_EVENT_MAX_DELIVER, 1, 1000),
    backoffMs: parseBackoff(env.EVENT_BACKOFF || DEFAULT_EVENT_BACKOFF),
  };
}

/**
 * The EVENTS stream's replicas (EVENTS_STREAM_REPLICAS) and byte cap (EVENTS_STREAM_MAX_BYTES, -1:
 * none), as the operator provisions it (`migrate.js bus`); services do not read them.
 */
export interface EventsStreamSettings {
  replicas: number;
  maxBytes: number;
}

export function eventsStreamSettings(env: NodeJS.ProcessEnv = process.env): EventsStreamSettings {
  return {
    // JetStream allows at most 5 replicas of a stream
    replicas: envInt(env, 'EVENTS_STREAM_REPLICAS', 1, 1, 5),
    maxBytes: envInt(env, 'EVENTS_STREAM_MAX_BYTES', -1, -1, Number.MAX_SAFE_INTEGER),
  };
}

/** The URL with user and password removed: safe to print. */
export function withoutCredentials(value: string): string {
  if (value.includes(',')) return natsServers(value).map(withoutCredentials).join(',');
  try {
    const parsed = new URL(value);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}

function url(env: NodeJS.ProcessEnv, name: string, fallback: string, schemes: string[]): string {
  const value = env[name] || fallback;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    // the value is not echoed: it may hold a password
    throw new ConfigError(`${name} is not a URL (a user or password with @ : / # ? in it must be percent-encoded)`);
  }
  if (!schemes.includes(parsed.protocol.replace(':', ''))) {
    throw new ConfigError(`${name} must use ${schemes.join(' or ')}, got "${withoutCredentials(value)}"`);
  }
  return value;
}

/** A PostgreSQL URL setting that may be unset (undefined); a value that is not one is a ConfigError naming it. */
export function optionalDatabaseUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value ? url(env, name, value, ['postgres', 'postgresql']) : undefined;
}

/**
 * Database of a service: `<SERVICE>_DATABASE_URL`, else `DATABASE_URL` (the server) with the
 * database `<DB_PREFIX><service>`.
 */
export function databaseUrlFor(service: ServiceName, env: NodeJS.ProcessEnv = process.env): string {
  const own = env[`${service.toUpperCase()}_DATABASE_URL`];
  if (own) return url(env, `${service.toUpperCase()}_DATABASE_URL`, own, ['postgres', 'postgresql']);
  const server = new URL(url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/postgres', ['postgres', 'postgresql']));
  server.pathname = `/${env.DB_PREFIX ?? 'lim_'}${service}`;
  return server.toString();
}

/**
 * NATS_URL: one server, or a NATS cluster's servers separated by commas (`nats://a:4222,nats://b:4222`),
 * each checked as a URL. A client connects to the first that answers, in the order given
 * (natsServers), and learns the rest of the cluster from it.
 */
export function natsUrl(env: NodeJS.ProcessEnv = process.env): string {
  const value = env.NATS_URL || 'nats://127.0.0.1:4222';
  for (const server of natsServers(value)) url({ NATS_URL: server }, 'NATS_URL', server, ['nats', 'tls']);
  return value;
}


/**
 * One attempt of a request that may be asked twice (docs/configuration.md, RPC_ATTEMPT_TIMEOUT_MS,
 * says why 1 s): a replica that died holding it costs its caller this long, and an attempt still
 * running past it keeps listening, so a slow answer is not lost to the next one.
 */
export const DEFAULT_RPC_ATTEMPT_TIMEOUT_MS = 1000;

/**
 * WARM_UP_DEADLINE_MS: a process's warm-up takes a few hundred milliseconds when its database
 * answers; one that does not answer promptly is not kept out of its queue groups longer than this.
 */
export const DEFAULT_WARM_UP_DEADLINE_MS = 3000;

/** Read once at start-up; a bad value stops the process with a clear message. */
export function loadServiceConfig(service: ServiceName, env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const portVar = service === 'gateway' ? 'PORT' : `${service.toUpperCase()}_HTTP_PORT`;
  readPgTls(env); // every connection reads it again; a bad setting stops the start here, named
  return {
    service,
    databaseUrl: databaseUrlFor(service, env),
    natsUrl: natsUrl(env),
    nats: readNatsSettings(service, natsUrl(env), env),
    httpPort: envInt(env, portVar, DEFAULT_HTTP_PORTS[service], 0, 65535),
    httpHost: env.HTTP_HOST || '127.0.0.1',
    rpcTimeoutMs: envInt(env, 'RPC_TIMEOUT_MS', 10_000, 100, 120_000),
    rpcAttemptTimeoutMs: envInt(env, 'RPC_ATTEMPT_TIMEOUT_MS', DEFAULT_RPC_ATTEMPT_TIMEOUT_MS, 50, 120_000),
    logLevel: env.LOG_LEVEL || 'info',
    dbProbeIntervalMs: envInt(env, 'DB_PROBE_INTERVAL_MS', 1000, 100, 60_000),
    shutdownGraceMs: envInt(env, 'SHUTDOWN_GRACE_MS', 25_000, 0, 600_000),
    warmUpDeadlineMs: envInt(env, 'WARM_UP_DEADLINE_MS', DEFAULT_WARM_UP_DEADLINE_MS, 0, 60_000),
    eventRetry: eventRetrySettings(env),
    pool: poolSettings(env, service),
  };
}
