import { ServiceName } from '@app/contracts';
import { ConfigError } from './config-error';
import { NatsConnectSettings, readNatsSettings } from './nats-auth';
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
  logLevel: string;
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

/** The URL with user and password removed: safe to print. */
export function withoutCredentials(value: string): string {
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

export function natsUrl(env: NodeJS.ProcessEnv = process.env): string {
  return url(env, 'NATS_URL', 'nats://127.0.0.1:4222', ['nats', 'tls']);
}

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
    logLevel: env.LOG_LEVEL || 'info',
  };
}
