import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { ClaimOwner, ClaimOwnerKind } from '../../libs/platform/src/claim-owner';
import { OutboxRepository } from '../../libs/platform/src/outbox.repository';
import { PgPair } from '../../tools/mesh/pg-pair';
import { freePort } from '../../tools/mesh/processes';

/**
 * The mesh's commits whose loss is harmless do not wait for the synchronous standby
 * (docs/decisions.md, "Commits that need not wait for the standby"): on a primary whose
 * synchronous standby never confirms, a claim owner's heartbeat and the outbox relay's marks
 * commit at once, while a commit that must be on the standby waits. PostgreSQL of our own
 * (PgPair), not the shared server: its synchronous_standby_names is changed.
 */
describe('commits that need not wait for the standby', () => {
  let dir: string;
  let pair: PgPair;
  let url: string;
  const clients: { end(): Promise<void> }[] = [];
  const kind: ClaimOwnerKind = { service: 'test', idPrefix: 'tst', table: 'test_instances', lockClass: 72201500 };

  /** Settles within `ms`, or says it did not. */
  const within = <T>(ms: number, work: Promise<T>): Promise<T | 'still waiting'> =>
    Promise.race([work, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms).unref())]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'durability-'));
    chmodSync(dir, 0o755);
    pair = await PgPair.start(join(dir, 'pg'), { primary: await freePort(), standby: await freePort(), rw: await freePort(), ro: await freePort() });
    url = `postgres://postgres@127.0.0.1:${pair.primary.port}/postgres`;
    const admin = new Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE TABLE ${kind.table} (id text COLLATE "C" PRIMARY KEY, seen_at timestamptz NOT NULL DEFAULT now())`);
    await admin.query(`CREATE TABLE outbox (seq bigserial PRIMARY KEY, id text NOT NULL UNIQUE, type text NOT NULL, envelope json NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz, trace_context json)`);
    await admin.query(`INSERT INTO outbox (id, type, envelope) SELECT 'evt_' || g, 'lead.created', '{}' FROM generate_series(1, 3) g`);
    // a synchronous standby that never confirms: a commit that waits for it waits forever
    await admin.query("ALTER SYSTEM SET synchronous_standby_names = 'no_such_standby'");
    await admin.query('SELECT pg_reload_conf()');
    await admin.end();
  });

  afterAll(async () => {
    for (const client of clients) await client.end().catch(() => undefined);
    await pair?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a commit that must reach the standby waits for it (what the others are spared)', async () => {
    const client = new Client({ connectionString: url });
    clients.push(client);
    await client.connect();
    expect(await within(1500, client.query(`INSERT INTO ${kind.table} (id) VALUES ('synchronous')`))).toBe('still waiting');
  });

  it("a claim owner's heartbeat commits without the standby", async () => {
    const owner = new ClaimOwner(url, kind, { beatMs: 3_600_000, staleAfterMs: 2000 });
    clients.push({ end: () => owner.onApplicationShutdown() });
    const beat = await within(3000, owner.beat().then(() => 'beat'));
    expect(beat).toBe('beat');
  });

  it("the outbox relay's marks commit without the standby", async () => {
    const pool = new Pool({ connectionString: url, max: 1 });
    clients.push(pool);
    const outbox = new OutboxRepository(pool);
    const client = await pool.connect();
    const batch = async () => {
      await client.query('BEGIN');
      const rows = await outbox.claimBatch(client, 10);
      await outbox.markPublished(client, rows.map((r) => r.seq));
      await client.query('COMMIT');
      return rows.length;
    };
    expect(await within(3000, batch())).toBe(3);
    client.release();
    const check = new Client({ connectionString: url });
    clients.push(check);
    await check.connect();
    expect((await check.query('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL')).rows).toEqual([{ n: 0 }]);
  });
});
