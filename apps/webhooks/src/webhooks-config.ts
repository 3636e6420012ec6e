import { createHash } from 'node:crypto';
import { ConfigError, envInt, rootLogger } from '@app/platform';

export interface WebhooksConfig {
  /** 32-byte AES-256-GCM key that encrypts signing secrets at rest. */
  secretKey: Buffer;
  /** Host names or IP addresses exempt from the private-address guard (tests, on-premise). */
  allowedHosts: Set<string>;
  /** DNS servers (`host` or `host:port`) that receivers' names are asked of; empty: the system's resolver. */
  dnsServers: string[];
  /** Attempts at once in this process, all endpoints together, from claim until the outcome is recorded. */
  concurrency: number;
  /** Requests in flight at once from this process to one endpoint (free when the receiver answers). */
  endpointConcurrency: number;
  /** Answer `webhooks.test.clockAdvance` and schedule retries on the movable clock (tests only). */
  testClock: boolean;
  /** How long a rolled secret's predecessor still signs deliveries, beside the new one (24 hours). */
  secretRollGraceMs: number;
  /** Time allowed for a 2xx (spec: 10 seconds). */
  timeoutMs: number;
  /** Days an event stays readable through GET /events before it is pruned (30). */
  eventsRetentionDays: number;
}

export const WEBHOOKS_CONFIG = Symbol('WEBHOOKS_CONFIG');

function secretKey(env: NodeJS.ProcessEnv): Buffer {
  const raw = env.WEBHOOK_SECRET_KEY;
  if (!raw) {
    if (env.NODE_ENV === 'production') throw new ConfigError('WEBHOOK_SECRET_KEY is required when NODE_ENV=production (32 bytes, hex or base64)');
    rootLogger('webhooks').warn('WEBHOOK_SECRET_KEY is not set: signing secrets are encrypted with a fixed development key');
    return createHash('sha256').update('lead-intelligence-mesh development webhook key').digest();
  }
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError('WEBHOOK_SECRET_KEY must be 32 bytes: 64 hex characters or base64');
  return key;
}

export function loadWebhooksConfig(env: NodeJS.ProcessEnv = process.env): WebhooksConfig {
  const allowedHosts = new Set(
    (env.WEBHOOK_ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim().toLowerCase().replace(/^\[|\]$/g, '')).filter(Boolean),
  );
  return {
    secretKey: secretKey(env),
    allowedHosts,
    dnsServers: (env.WEBHOOK_DNS_SERVERS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    concurrency: envInt(env, 'WEBHOOK_CONCURRENCY', 256, 1, 10_000),
    endpointConcurrency: envInt(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 64, 1, 1000),
    testClock: env.WEBHOOK_TEST_CLOCK === '1',
    secretRollGraceMs: envInt(env, 'WEBHOOK_SECRET_ROLL_GRACE_MS', 24 * 3_600_000, 0, 7 * 24 * 3_600_000),
    timeoutMs: envInt(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    eventsRetentionDays: envInt(env, 'EVENTS_RETENTION_DAYS', 30, 1, 3650),
  };
}
