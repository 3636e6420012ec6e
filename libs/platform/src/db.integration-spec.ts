import { Client, Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { poolOf, serviceDataSourceOptions } from './data-source';
import { createPool, listenOn } from './db';

/** createPool's session settings, against the real PostgreSQL of the tests. */
describe('createPool', () => {
  const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const setting = async (env: string | undefined): Promise<string> => {
    const saved = process.env.PG_EFFECTIVE_IO_CONCURRENCY;
    if (env === undefined) delete process.env.PG_EFFECTIVE_IO_CONCURRENCY;
    else process.env.PG_EFFECTIVE_IO_CONCURRENCY = env;
    try {
      let isolated!: typeof createPool;
      jest.isolateModules(() => ({ createPool: isolated } = require('./db')));
      const pool = isolated(url, 1);
      try {
        return (await pool.query<{ effective_io_concurrency: string }>('SHOW effective_io_concurrency')).rows[0].effective_io_concurrency;
      } finally {
        await pool.end();
      }
    } finally {
      if (saved === undefined) delete process.env.PG_EFFECTIVE_IO_CONCURRENCY;
      else process.env.PG_EFFECTIVE_IO_CONCURRENCY = saved;
    }
  };

  it('reads ahead 64 heap pages in bitmap heap scans unless PG_EFFECTIVE_IO_CONCURRENCY says otherwise', async () => {
    expect(await setting(undefined)).toBe('64');
    expect(await setting('200')).toBe('200');
  });

  it("leaves the server's setting when PG_EFFECTIVE_IO_CONCURRENCY is empty", async () => {
    const plain = new Client({ connectionString: url });
    await plain.connect();
    const server = (await plain.query('SHOW effective_io_concurrency')).rows[0].effective_io_concurrency;
    await plain.end();
    expect(server).not.toBe('200');
    expect(await setting('')).toBe(server);
  });
});

/**
 * PG_POOL_KEEP (PoolSettings.keep): the pool closes connections idle for PG_POOL_IDLE_MS down to the
 * kept ones, which stay open (and are the same backends) however long they sit idle.
 */
describe('connections kept open', () => {
  const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  let dataSource: DataSource | undefined;
  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('closes idle connections above the kept ones and keeps those, the same backends', async () => {
    dataSource = await new DataSource(serviceDataSourceOptions({ databaseUrl: url, pool: { max: 4, keep: 2, idleMs: 100, effectiveIoConcurrency: null } })).initialize();
    const pool = poolOf(dataSource);
    const pidOf = async (c: PoolClient) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const held = await Promise.all([1, 2, 3, 4].map(() => pool.connect()));
    const pids = await Promise.all(held.map(pidOf));
    held.forEach((c) => c.release());
    expect(pool.totalCount).toBe(4);
    await new Promise((r) => setTimeout(r, 600));
    expect(pool.totalCount).toBe(2);
    expect(pool.idleCount).toBe(2);
    const again = await Promise.all([1, 2].map(() => pool.connect()));
    const kept = await Promise.all(again.map(pidOf));
    again.forEach((c) => c.release());
    // the kept connections are two of the four backends opened first, not new ones
    for (const pid of kept) expect(pids).toContain(pid);
    expect(new Set(kept).size).toBe(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(pool.totalCount).toBe(2);
  });

  it('with none kept (the default of a service other than search), closes every idle connection', async () => {
    const none = await new DataSource(serviceDataSourceOptions({ databaseUrl: url, pool: { max: 2, idleMs: 100, effectiveIoConcurrency: null } })).initialize();
    try {
      const pool = poolOf(none);
      const held = await Promise.all([1, 2].map(() => pool.connect()));
      held.forEach((c) => c.release());
      await new Promise((r) => setTimeout(r, 500));
      expect(pool.totalCount).toBe(0);
    } finally {
      await none.destroy();
    }
  });
});

/**
 * A broken connection never ends the process, in the pools built by createPool and by TypeORM
 * (serviceDataSourceOptions): a checked-out one fails its holder's next query, an idle one is
 * dropped by the pool, and the pool goes on serving.
 */
describe('broken connections', () => {
  const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  let dataSource: DataSource;
  const pools: Record<string, () => Pool> = {};
  let own: Pool;
  let admin: Client;
  beforeAll(async () => {
    admin = new Client({ connectionString: url });
    await admin.connect();
    own = createPool(url, 2);
    dataSource = await new DataSource(serviceDataSourceOptions({ databaseUrl: url, pool: { max: 2, effectiveIoConcurrency: null } })).initialize();
    pools.createPool = () => own;
    pools.TypeORM = () => poolOf(dataSource);
  });
  afterAll(async () => {
    await own?.end();
    await dataSource?.destroy();
    await admin?.end();
  });
  const terminate = (pid: number) => admin.query('SELECT pg_terminate_backend($1)', [pid]);

  it.each(['createPool', 'TypeORM'])('%s: a checked-out connection that breaks fails its next query', async (name) => {
    const pool = pools[name]();
    const held = await pool.connect();
    const { pid } = (await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0];
    const ended = new Promise((resolve) => held.once('end', resolve));
    await terminate(pid);
    await ended;
    await expect(held.query('SELECT 1')).rejects.toThrow();
    held.release(true);
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
  });

  it.each(['createPool', 'TypeORM'])('%s: an idle connection that breaks is dropped', async (name) => {
    const pool = pools[name]();
    const client = await pool.connect();
    const { pid } = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0];
    client.release();
    const dropped = new Promise((resolve) => pool.once('remove', resolve));
    await terminate(pid);
    await dropped;
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
  });
});

/**
 * listenOn's session outlives a broken connection: the dead one's slot of the pool is freed (a
 * checked-out connection is the pool's until handed back), LISTEN is taken up again on a fresh one,
 * and the listener is told once, since a NOTIFY sent meanwhile reached nobody.
 */
describe('listenOn', () => {
  const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  let pool: Pool;
  let admin: Client;
  beforeAll(async () => {
    admin = new Client({ connectionString: url });
    await admin.connect();
    pool = createPool(url, 2);
  });
  afterAll(async () => {
    await pool?.end();
    await admin?.end();
  });
  const listenerPid = async (channel: string): Promise<number> => {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()`,
      [`LISTEN ${channel}`],
    );
    expect(rows).toHaveLength(1);
    return rows[0].pid;
  };

  it('replaces a broken LISTEN connection: its slot freed, NOTIFY heard again', async () => {
    const channel = `t_listen_${process.pid}_${Date.now()}`;
    let heard = 0;
    let heardNext: () => void = () => undefined;
    const next = () => new Promise<void>((resolve) => (heardNext = resolve));
    const errors: string[] = [];
    const close = await listenOn(pool, channel, () => {
      heard++;
      heardNext();
    }, (err) => errors.push(err.message));
    try {
      let notified = next();
      await admin.query(`NOTIFY ${channel}`);
      await notified;
      expect(heard).toBe(1);

      const first = await listenerPid(channel);
      notified = next(); // the listener is told once when LISTEN is back
      await admin.query('SELECT pg_terminate_backend($1)', [first]);
      await notified;
      expect(errors.length).toBeGreaterThan(0);
      const second = await listenerPid(channel);
      expect(second).not.toBe(first);
      expect(pool.totalCount).toBe(1);

      notified = next();
      await admin.query(`NOTIFY ${channel}`);
      await notified;
      expect(heard).toBe(3);

      // the dead connection's slot serves requests again (max 2, the new LISTEN holds one)
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
    } finally {
      await close();
    }
    expect(pool.totalCount).toBeLessThanOrEqual(1);
  });
});
