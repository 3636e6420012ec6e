import { envInt, loadExportLinkConfig, loadServiceConfig, secretSetting, ServiceConfig } from '@app/platform';

export const DEV_IDEMPOTENCY_SECRET_KEY = 'dev-only-idempotency-secret-key-change-me';

export interface GatewayConfig extends ServiceConfig {
  rateLimitPerMinute: number;
  unauthenticatedRateLimitPerMinute: number;
  docsUrl: string;
  bodyLimitBytes: number;
  keyCacheTtlMs: number;
  trustProxy: boolean;
  /** Seals every answer the idempotency store keeps (IDEMPOTENCY_SECRET_KEY): a dump of its table reads none. */
  idempotencySecretKey: string;
  /** Where `databaseUrl` came from, named in what the operator is told about the database. */
  databaseSetting: 'GATEWAY_DATABASE_URL' | 'DATABASE_URL and DB_PREFIX';
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
    trustProxy: env.TRUST_PROXY === 'true',
    idempotencySecretKey: secretSetting(env, 'IDEMPOTENCY_SECRET_KEY', DEV_IDEMPOTENCY_SECRET_KEY),
    databaseSetting: env.GATEWAY_DATABASE_URL ? 'GATEWAY_DATABASE_URL' : 'DATABASE_URL and DB_PREFIX',
    routeLog: env.GATEWAY_ROUTE_LOG || null,
  };
}
