import { existsSync, readFileSync } from 'node:fs';
import { checkServerIdentity, ConnectionOptions } from 'node:tls';
import { ClientConfig } from 'pg';
import { ConfigError } from './config-error';

export const PG_SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type PgSslMode = (typeof PG_SSL_MODES)[number];

/**
 * TLS of every PostgreSQL connection (pools, LISTEN clients, migrations, the admin CLI), from
 * `PG_SSL_MODE`, `PG_TLS_CA_FILE`, `PG_TLS_CERT_FILE`, `PG_TLS_KEY_FILE`, `PG_TLS_SERVER_NAME`.
 * Separate variables rather than libpq's `sslmode`/`sslrootcert` in `DATABASE_URL`: the URL is
 * rewritten per service and per database, and has no place for the name to check the
 * certificate against. Undefined: nothing configured, node-postgres decides (plain TCP, or what
 * an `sslmode` in the URL says; the URL's wins over these). The files are read at each call, so a
 * renewed certificate mounted from a Secret is used by the next connection.
 */
export function readPgTls(env: NodeJS.ProcessEnv = process.env): ConnectionOptions | false | undefined {
  const { PG_SSL_MODE: rawMode, PG_TLS_CA_FILE: caFile, PG_TLS_CERT_FILE: certFile, PG_TLS_KEY_FILE: keyFile, PG_TLS_SERVER_NAME: serverName } = env;
  if (!rawMode && !caFile && !certFile && !keyFile && !serverName) return undefined;
  const mode = (rawMode || 'verify-full') as PgSslMode;
  if (!PG_SSL_MODES.includes(mode)) throw new ConfigError(`PG_SSL_MODE must be one of ${PG_SSL_MODES.join(', ')}, got "${rawMode}"`);
  if (mode === 'disable') return false;
  // production traffic is never encrypted to whoever answers: the server proves who it is
  if (mode === 'require' && env.NODE_ENV === 'production') {
    throw new ConfigError('PG_SSL_MODE=require does not verify the server: use verify-full (or verify-ca) when NODE_ENV=production');
  }
  if (mode === 'verify-ca' && !caFile) throw new ConfigError('PG_SSL_MODE=verify-ca needs PG_TLS_CA_FILE (the CA that signed the server certificate)');
  if (Boolean(certFile) !== Boolean(keyFile)) throw new ConfigError('PG_TLS_CERT_FILE and PG_TLS_KEY_FILE go together (a client certificate and its key)');
  const read = (name: string, file: string) => {
    if (!existsSync(file)) throw new ConfigError(`${name} names a file that does not exist: ${file}`);
    return readFileSync(file, 'utf8');
  };
  const tls: ConnectionOptions = { rejectUnauthorized: mode !== 'require' };
  if (caFile) tls.ca = read('PG_TLS_CA_FILE', caFile);
  if (certFile && keyFile) {
    tls.cert = read('PG_TLS_CERT_FILE', certFile);
    tls.key = read('PG_TLS_KEY_FILE', keyFile);
  }
  // node-postgres sets `servername` to the URL's host itself, so another name is checked here
  if (mode === 'verify-ca') tls.checkServerIdentity = () => undefined;
  else if (mode === 'verify-full' && serverName) tls.checkServerIdentity = (_host, cert) => checkServerIdentity(serverName, cert);
  return tls;
}

/** node-postgres options of a connection to `databaseUrl`, with the configured TLS. */
export function pgClientConfig(databaseUrl: string, env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const ssl = readPgTls(env);
  return { connectionString: databaseUrl, ...(ssl === undefined ? {} : { ssl }) };
}
