import { isIP } from 'node:net';
import { ConfigError, envInt, loadExportLinkConfig, loadServiceConfig, secretSetting, ServiceConfig } from '@app/platform';

export const DEV_IDEMPOTENCY_SECRET_KEY = 'dev-only-idempotency-secret-key-change-me';

export interface GatewayConfig extends ServiceConfig {
  rateLimitPerMinute: number;
  unauthenticatedRateLimitPerMinute: number;
  docsUrl: string;
  bodyLimitBytes: number;
  keyCacheTtlMs: number;
  /** Whose X-Forwarded-For names the client (TRUST_PROXY, in Fastify's `trustProxy` forms). */
  trustProxy: TrustProxy;
  /** Seals every answer the idempotency store keeps (IDEMPOTENCY_SECRET_KEY): a dump of its table reads none. */
  idempotencySecretKey: string;
  /** Where `databaseUrl` came from, named in what the operator is told about the database. */
  databaseSetting: 'GATEWAY_DATABASE_URL' | 'DATABASE_URL and DB_PREFIX';
  /** GET /events/stream: how often an open stream reads the stored events. */
  eventsStreamPollMs: number;
  /** GET /events/stream: the longest an open stream stays silent (a comment line keeps proxies from closing it). */
  eventsStreamHeartbeatMs: number;
  /** GET /events/stream: streams one key may hold open at once on one replica. */
  eventsStreamsPerKey: number;
  /** Testing only: the file every registered route is appended to (GATEWAY_ROUTE_LOG; route-recorder.ts). */
  routeLog: string | null;
}

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return {
    ...loadServiceConfig('gateway', env),
    rateLimitPerMinute: envInt(env, 'RATE_LIMIT_PER_MINUTE', 120, 0, Number.MAX_SAFE_INTEGER),
    unauthenticatedRateLimitPerMinute: envInt(env, 'RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE', 120, 0, Number.MAX_SAFE_INTEGER),
    // the error catalogue this gateway serves, at the API's public address (as export links use)
    docsUrl: env.DOCS_URL || `${loadExportLinkConfig(env).publicApiUrl}/docs/errors`,
    bodyLimitBytes: envInt(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    keyCacheTtlMs: envInt(env, 'KEY_CACHE_TTL_MS', 10_000, 0, Number.MAX_SAFE_INTEGER),
    trustProxy: trustProxySetting(env),
    idempotencySecretKey: secretSetting(env, 'IDEMPOTENCY_SECRET_KEY', DEV_IDEMPOTENCY_SECRET_KEY),
    databaseSetting: env.GATEWAY_DATABASE_URL ? 'GATEWAY_DATABASE_URL' : 'DATABASE_URL and DB_PREFIX',
    eventsStreamPollMs: envInt(env, 'EVENTS_STREAM_POLL_MS', 1000, 50, 60_000),
    eventsStreamHeartbeatMs: envInt(env, 'EVENTS_STREAM_HEARTBEAT_MS', 15_000, 100, 300_000),
    eventsStreamsPerKey: envInt(env, 'EVENTS_STREAMS_PER_KEY', 10, 1, 10_000),
    routeLog: env.GATEWAY_ROUTE_LOG || null,
  };
}

/** Fastify's `trustProxy`: no proxy, every hop, or the proxies' addresses and ranges. */
export type TrustProxy = boolean | string[];

/** proxy-addr's names for the loopback, link-local and unique-local ranges. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address (IPv4 or IPv6), a CIDR range of either, or one of NAMED_RANGES. */
function isProxyAddress(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * Which peers of the gateway are trusted to name the client in `X-Forwarded-For`, which the
 * per-address rate limit and the logs then use: the client is the address nearest the gateway
 * that is not a trusted proxy, so a client cannot pick its own bucket by sending the header.
 * Unset or `false`: none (the connection's address is the client's). A comma-separated list: the
 * proxies' addresses and CIDR ranges. `true` trusts every hop, fit only when nothing but a proxy
 * can reach the gateway. A number of hops is refused: Fastify trusts no hop for one, as it cannot
 * tell the proxy from a client connecting directly, and a setting that silently did nothing would
 * put every client behind the ingress in one bucket.
 */
export function trustProxySetting(env: NodeJS.ProcessEnv): TrustProxy {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) {
    throw new ConfigError(`TRUST_PROXY takes the proxies' addresses or CIDR ranges, not a number of hops ("${raw}"): name the ingress's, e.g. its pod network`);
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  if (!entries.every(isProxyAddress)) {
    throw new ConfigError(`TRUST_PROXY must be true, false, or a comma-separated list of the proxies' addresses and CIDR ranges, got "${raw}"`);
  }
  return entries;
}
