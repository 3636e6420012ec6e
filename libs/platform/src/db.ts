import { Client, Pool, PoolClient } from 'pg';
import { pgClientConfig } from './pg-tls';

export interface Migration {
  id: string;
  up: string;
}

/**
 * `effective_io_concurrency` of every pooled connection (`PG_EFFECTIVE_IO_CONCURRENCY`, default 64;
 * empty leaves the server's): how many heap pages a bitmap heap scan asks the kernel to read ahead.
 * At the server's default (1) a search's matches are read one page at a time when they are not
 * cached: one first search's read of every match (~2,000 heap pages of a 1M index) took 110-190 ms
 * at 1 and 37-50 ms at 64 (256 the same); 16 first searches at once on an index larger than memory
 * (2M entities) had a p95 of 755-5,286 ms at 1 and 620-631 ms at 64, with less PostgreSQL CPU
 * (benchmarks.md). A startup option, so no SET round trip per connection; a pooler in front that
 * refuses startup options (PgBouncer without `ignore_startup_parameters = options`) needs it empty.
 */
const IO_CONCURRENCY = process.env.PG_EFFECTIVE_IO_CONCURRENCY ?? '64';

export function createPool(databaseUrl: string, max = Number(process.env.PG_POOL_MAX || 10)): Pool {
  const options = /^\d+$/.test(IO_CONCURRENCY) ? `-c effective_io_concurrency=${IO_CONCURRENCY}` : undefined;
  const pool = new Pool({ ...pgClientConfig(databaseUrl), max, idleTimeoutMillis: 30_000, options });
  pool.on('error', () => undefined); // an idle client's broken connection is replaced on next use
  // a checked-out client whose connection breaks between two queries (a database gone away while
  // a transaction awaits a peer) emits 'error' with no pool listener on it: unheard, that ends the
  // process; its holder sees the failure at its next query instead
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** Creates the database named in the URL when it does not exist yet. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const target = new URL(databaseUrl);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new Client(pgClientConfig(admin.toString()));
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04' && err.code !== '23505') throw err; // created meanwhile by another process
      });
    }
  } finally {
    await client.end();
  }
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new Client(pgClientConfig(admin.toString()));
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

const MIGRATION_LOCK = 72_201_447;

/**
 * Applies the migrations not yet recorded, in order, each in its own transaction, under a
 * session advisory lock so that replicas starting together migrate once.
 */
export async function migrate(databaseUrl: string, migrations: Migration[]): Promise<string[]> {
  const ids = migrations.map((m) => m.id);
  const doubled = ids.find((id, i) => ids.indexOf(id) !== i);
  if (doubled) throw new Error(`migration ${doubled} is listed twice`);
  const client = new Client(pgClientConfig(databaseUrl));
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await client.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id));
    for (const migration of migrations) {
      if (done.has(migration.id)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.up);
        await client.query('INSERT INTO schema_migrations (id) VALUES ($1)', [migration.id]);
        await client.query('COMMIT');
        applied.push(migration.id);
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${migration.id} failed: ${(err as Error).message}`);
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
  return applied;
}

export async function prepareDatabase(databaseUrl: string, migrations: Migration[]): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  return migrate(databaseUrl, migrations);
}

/**
 * Runs `work` in a transaction. `asyncCommit`: the commit does not wait for the WAL flush (set in
 * the same round trip as BEGIN), for writes a database crash may lose because they are made again.
 */
export async function withTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>, options: { asyncCommit?: boolean } = {}): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(options.asyncCommit ? 'BEGIN; SET LOCAL synchronous_commit = off' : 'BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

export type Queryable = Pick<PoolClient, 'query'>;
