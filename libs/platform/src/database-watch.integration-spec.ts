import { Pool } from 'pg';
import pino from 'pino';
import { PG_SERVER_URL } from '../../../test/harness';
import { TcpProxy } from '../../../tools/mesh/tcp-proxy';
import { DatabaseWatch, SLOW_PROBES_TO_LEAVE } from './database-watch';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * DatabaseWatch against the real PostgreSQL, reached through a proxy the test stalls (every byte
 * held, nothing closed: a database too slow to answer) or cuts (connections destroyed, new ones
 * refused: a database that went away). One slow probe keeps the service in its queue groups; a
 * run of them, or a lost database, takes it out.
 */
describe('DatabaseWatch (real PostgreSQL through a proxy)', () => {
  let proxy: TcpProxy;
  let pool: Pool;
  let watch: DatabaseWatch | undefined;
  const changes: boolean[] = [];

  beforeAll(async () => {
    const server = new URL(PG_SERVER_URL);
    proxy = await TcpProxy.start(server.hostname, Number(server.port || 5432));
  });
  afterAll(async () => {
    await proxy?.close();
  });
  beforeEach(() => {
    proxy.unstall();
    proxy.restore();
    changes.length = 0;
    const viaProxy = new URL(PG_SERVER_URL);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    pool = new Pool({ connectionString: viaProxy.toString(), max: 1 });
    pool.on('error', () => undefined);
    watch = new DatabaseWatch(viaProxy.toString(), pool, 60_000, async (up) => void changes.push(up), pino({ level: 'silent' }));
  });
  afterEach(async () => {
    watch?.stop();
    proxy.unstall();
    await pool.end().catch(() => undefined);
  });

  it('stays in on one probe that outlives its deadline, and leaves after a run of them', async () => {
    await watch!.probe();
    expect(changes).toEqual([]);

    proxy.stall();
    const started = Date.now();
    await watch!.probe();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(changes).toEqual([]); // one slow probe: still in

    proxy.unstall();
    await watch!.probe();
    expect(changes).toEqual([]); // it answered: the run of slow probes starts again

    proxy.stall();
    for (let i = 1; i < SLOW_PROBES_TO_LEAVE; i++) await watch!.probe();
    expect(changes).toEqual([]);
    await watch!.probe();
    expect(changes).toEqual([false]); // SLOW_PROBES_TO_LEAVE in a row: out

    proxy.unstall();
    await sleep(50);
    await watch!.probe();
    expect(changes).toEqual([false, true]);
  }, 30_000);

  it('leaves at once when the database refuses connections, and joins again when it answers', async () => {
    await watch!.probe();
    proxy.cut();
    await watch!.probe();
    expect(changes).toEqual([false]);
    proxy.restore();
    await watch!.probe();
    expect(changes).toEqual([false, true]);
  });

  it('opens no connection once stopped, though a look again after a failed probe was pending', async () => {
    proxy.cut();
    await watch!.probe(); // refused: out, and a look again due in moments
    expect(changes).toEqual([false]);
    proxy.restore();
    watch!.stop();
    await sleep(500); // well past the look again's 100 ms
    expect(proxy.connections).toBe(0); // a stopped watch opened nothing (it used to, and left it open)
    expect(changes).toEqual([false]);
  });

  it('probes on an idle pooled connection when the pool has one, with no connection of its own', async () => {
    const held = await pool.connect();
    held.release(); // one idle connection in the pool
    // the connections of the tests before have closed: the pool's is the proxy's only one
    for (const until = Date.now() + 2000; proxy.connections !== 1 && Date.now() < until; ) await sleep(10);
    expect(proxy.connections).toBe(1);
    const before = pool.totalCount;
    await watch!.probe();
    expect(changes).toEqual([]);
    expect(pool.totalCount).toBe(before); // the pool's connection, no other opened in it
    expect(pool.idleCount).toBe(1); // handed back after the probe
    expect(proxy.connections).toBe(1); // the watch opened none of its own
  });

  it('destroys a pooled connection whose probe outlived its deadline, and counts the probe as slow', async () => {
    const held = await pool.connect();
    held.release();
    proxy.stall();
    const started = Date.now();
    await watch!.probe();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(changes).toEqual([]); // one slow probe: still in
    expect(pool.totalCount).toBe(0); // the stalled connection serves no request after it
    for (let i = 1; i < SLOW_PROBES_TO_LEAVE; i++) await watch!.probe();
    expect(changes).toEqual([false]);
    proxy.unstall();
    await sleep(50);
    await watch!.probe();
    expect(changes).toEqual([false, true]);
  }, 30_000);
});
