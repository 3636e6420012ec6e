/** createPool's session settings, against the real PostgreSQL of the tests. */
describe('createPool', () => {
  const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const setting = async (env: string | undefined): Promise<string> => {
    const saved = process.env.PG_EFFECTIVE_IO_CONCURRENCY;
    if (env === undefined) delete process.env.PG_EFFECTIVE_IO_CONCURRENCY;
    else process.env.PG_EFFECTIVE_IO_CONCURRENCY = env;
    try {
      let createPool!: typeof import('./db').createPool;
      jest.isolateModules(() => ({ createPool } = require('./db')));
      const pool = createPool(url, 1);
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
    const { Client } = await import('pg');
    const plain = new Client({ connectionString: url });
    await plain.connect();
    const server = (await plain.query('SHOW effective_io_concurrency')).rows[0].effective_io_concurrency;
    await plain.end();
    expect(server).not.toBe('200');
    expect(await setting('')).toBe(server);
  });
});
