import { Client, ClientConfig, Pool, PoolClient, PoolConfig } from 'pg';
import { PoolSettings, poolSettings } from './config';
import { pgClientConfig } from './pg-tls';

/**
 * A connection of a service's pool. pg-pool listens for errors of its idle connections (and
 * replaces a broken one on next use: `ignorePoolError`), but not of a checked-out one: a
 * connection that breaks between two queries of its holder (a database gone away while a
 * transaction awaits a peer) would emit 'error' with no listener and end the process. Its holder
 * sees the failure at its next query instead. Given to the pool as pg-pool's `Client` option.
 */
export class ServiceConnection extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}

/** The pool's 'error' listener (an idle connection broke; the pool drops it): TypeORM's `poolErrorHandler`. */
export function ignorePoolError(): void {}

/**
 * node-postgres pool settings of a service's pool: TLS, size, idle timeout and the connections
 * kept however long idle (`min`: PoolSettings.keep), startup options, and its connections
 * (ServiceConnection).
 * `effective_io_concurrency` (PoolSettings) is how many heap pages a bitmap heap scan asks the
 * kernel to read ahead: at the server's default (1) a search's matches are read one page at a time
 * when they are not cached. A startup option, so no SET round trip
 * per connection; a pooler in front that refuses startup options (PgBouncer without
 * `ignore_startup_parameters = options`) needs it unset.
 */
export function poolConfig(databaseUrl: string, settings: PoolSettings): PoolConfig {
  const io = settings.effectiveIoConcurrency;
  const options = io === null ? undefined : `-c effective_io_concurrency=${io}`;
  return { ...pgClientConfig(databaseUrl), max: settings.max, min: Math.min(settings.keep ?? 0, settings.max), idleTimeoutMillis: settings.idleMs ?? 30_000, options, Client: ServiceConnection };
}

/** The first wait before a broken LISTEN connection is replaced; doubled on each failed attempt, up to LISTEN_RETRY_MAX_MS. */
const LISTEN_RETRY_MS = 100;
const LISTEN_RETRY_MAX_MS = 5000;

/**
 * LISTEN on a connection of the service's pool, held for as long as the listener lives (LISTEN
 * belongs to a session): `onNotify` on every NOTIFY of `channel`, `onError` when the connection
 * fails. A connection that fails (a database restarted or failed over, a terminated backend) is
 * handed back destroyed, so its slot of the pool serves requests again instead of being held by a
 * dead session, and LISTEN is taken up again on a fresh connection (after LISTEN_RETRY_MS, doubling
 * while the database does not answer); `onNotify` is called once when it is back, since a NOTIFY
 * sent while nobody listened is lost. The first LISTEN's failure is the caller's (thrown). The
 * returned close destroys the connection instead of handing it back, so no later query inherits
 * the subscription.
 */
export async function listenOn(pool: Pool, channel: string, onNotify: () => void, onError: (err: Error) => void = () => undefined): Promise<() => Promise<void>> {
  let closed = false;
  let held: PoolClient | undefined;
  let retry: NodeJS.Timeout | undefined;
  let waitMs = LISTEN_RETRY_MS;
  const listen = async (): Promise<void> => {
    const client = await pool.connect();
    if (closed) {
      client.release(true);
      return;
    }
    const broken = (err: Error) => {
      if (held !== client) return;
      held = undefined;
      client.removeListener('notification', onNotify);
      client.release(err);
      onError(err);
      if (!closed) again();
    };
    held = client;
    client.on('error', broken);
    client.on('end', () => broken(new Error(`LISTEN ${channel}: connection ended`)));
    client.on('notification', onNotify);
    try {
      await client.query(`LISTEN ${channel}`);
    } catch (err) {
      if (held === client) {
        held = undefined;
        client.removeListener('notification', onNotify);
        client.release(true);
      }
      throw err;
    }
  };
  const again = () => {
    clearTimeout(retry);
    retry = setTimeout(() => {
      listen().then(
        () => {
          if (closed || !held) return;
          waitMs = LISTEN_RETRY_MS;
          onNotify();
        },
        (err: Error) => {
          if (closed) return;
          waitMs = Math.min(waitMs * 2, LISTEN_RETRY_MAX_MS);
          onError(err);
          again();
        },
      );
    }, waitMs);
    retry.unref();
  };
  await listen();
  return async () => {
    if (closed) return;
    closed = true;
    clearTimeout(retry);
    const client = held;
    held = undefined;
    if (!client) return;
    client.removeListener('notification', onNotify);
    client.release(true);
  };
}

/** A pool of its own, for processes that run no service (the admin CLI, tools). */
export function createPool(databaseUrl: string, max?: number): Pool {
  const settings = poolSettings();
  const pool = new Pool(poolConfig(databaseUrl, { ...settings, max: max ?? settings.max }));
  pool.on('error', ignorePoolError);
  return pool;
}

/**
 * Runs `work` on a connection to the server's `postgres` database, with the name of the database
 * the URL names (quoted for SQL as `quoted`), for creating, finding and dropping it.
 */
async function onServer<T>(databaseUrl: string, work: (client: Client, name: string, quoted: string) => Promise<T>): Promise<T> {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new Client(pgClientConfig(admin.toString()));
  await client.connect();
  try {
    return await work(client, name, `"${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

/** Whether the database named in the URL exists on its server. */
export function databaseExists(databaseUrl: string): Promise<boolean> {
  return onServer(databaseUrl, async (client, name) => (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);
}

/** Creates the database named in the URL when it does not exist yet. */
export function ensureDatabase(databaseUrl: string): Promise<void> {
  return onServer(databaseUrl, async (client, name, quoted) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${quoted}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04' && err.code !== '23505') throw err; // created meanwhile by another process
      });
    }
  });
}

export function dropDatabase(databaseUrl: string): Promise<void> {
  return onServer(databaseUrl, async (client, _name, quoted) => {
    await client.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
  });
}

/** What a repository method runs its statements on: the pool, or a unit of work's Tx (unit-of-work.ts). */
export type Queryable = Pick<PoolClient, 'query'>;
