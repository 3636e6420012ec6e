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
});
