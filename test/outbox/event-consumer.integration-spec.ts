import { Pool } from 'pg';
import pino from 'pino';
import { DataSource, QueryRunner } from 'typeorm';
import {
  DeadEventsMigration, DeadEventsRepository, DeadLetters, EventBusMigration, EventConsumer, eventRetrySettings, OutboxRelay, OutboxRepository, OutboxTraceContextMigration, poolOf,
  poolSettings, recordEvent, runMigrations, serviceDataSourceOptions, UnitOfWork,
} from '@app/platform';
import { PG_SERVER_URL, TestMesh } from '../harness';
import { allowance } from '../support/timing';

const log = pino({ level: 'silent' });

class EventBus1000000000000 extends EventBusMigration {}
class DeadEvents1000000001000 extends DeadEventsMigration {}
class OutboxTraceContext1000000002000 extends OutboxTraceContextMigration {}
class Things1000000003000 {
  async up(queryRunner: QueryRunner) {
    await queryRunner.query('CREATE TABLE things (id text PRIMARY KEY); CREATE TABLE handled (event_id text, attempt int);');
  }
  async down(queryRunner: QueryRunner) {
    await queryRunner.query('DROP TABLE handled; DROP TABLE things;');
  }
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs = allowance(15_000)): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The event bus end to end inside one process: outbox written in the change's transaction,
 * relay to JetStream, a durable pull consumer with explicit ack recording processed ids.
 */
describe('outbox, relay and durable consumer', () => {
  let mesh: TestMesh;
  let pool: Pool;
  let dataSource: DataSource;
  let uow: UnitOfWork;
  let databaseUrl: string;

  /** A service's database as the platform module opens it: a DataSource, its pool, a UnitOfWork on it. */
  async function openDatabase(max: number): Promise<{ dataSource: DataSource; pool: Pool; uow: UnitOfWork }> {
    const opened = new DataSource(serviceDataSourceOptions({ databaseUrl, pool: { ...poolSettings(), max } }));
    await opened.initialize();
    return { dataSource: opened, pool: poolOf(opened), uow: new UnitOfWork(opened) };
  }

  beforeAll(async () => {
    mesh = await TestMesh.start([]);
    const url = new URL(PG_SERVER_URL);
    url.pathname = `/${mesh.dbPrefix}bus`;
    databaseUrl = url.toString();
    await runMigrations(databaseUrl, [EventBus1000000000000, DeadEvents1000000001000, OutboxTraceContext1000000002000, Things1000000003000]);
    ({ dataSource, pool, uow } = await openDatabase(4));
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await mesh?.close();
  });

  async function change(id: string, fail = false) {
    await uow.run(async (tx) => {
      await tx.query('INSERT INTO things (id) VALUES ($1)', [id]);
      await recordEvent(tx, { type: 'lead.created', workspace_id: 'ws_1', livemode: true, api_version: '2026-09-28', object: { id } });
      if (fail) throw new Error('rolled back');
    });
  }

  it('records the event only when the change commits, and delivers each event to the handler once', async () => {
    const nc = await mesh.natsClient();
    await change('a');
    await expect(change('b', true)).rejects.toThrow('rolled back');
    expect((await pool.query('SELECT id FROM things')).rows).toEqual([{ id: 'a' }]);
    expect((await pool.query('SELECT count(*)::int AS n FROM outbox')).rows[0].n).toBe(1);

    const relay = new OutboxRelay(uow, new OutboxRepository(pool), nc, log);
    await relay.start();
    let failOnce = true;
    const consumer = new EventConsumer(nc, uow, {
      durable: 'test-consumer',
      types: ['lead.created'],
      handle: async (event, tx) => {
        await tx.query('INSERT INTO handled (event_id, attempt) VALUES ($1, 1)', [event.id]);
        if ((event.data.object as { id: string }).id === 'c' && failOnce) {
          failOnce = false;
          throw new Error('transient failure');
        }
      },
    }, log, new DeadLetters('crm', new DeadEventsRepository(pool), log, eventRetrySettings({})));
    await consumer.start();

    await change('c');
    for (let i = 0; i < 20; i++) await change(`bulk${i}`);
    await waitUntil(async () => (await pool.query('SELECT count(*)::int AS n FROM handled')).rows[0].n === 22);

    const rows = (await pool.query('SELECT event_id, count(*)::int AS n FROM handled GROUP BY event_id')).rows;
    expect(rows).toHaveLength(22);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    const envelope = (await pool.query(`SELECT envelope FROM outbox ORDER BY seq LIMIT 1`)).rows[0].envelope;
    expect(envelope).toMatchObject({ object: 'event', type: 'lead.created', api_version: '2026-09-28', workspace_id: 'ws_1', livemode: true, data: { object: { id: 'a' } } });
    expect(envelope.id).toMatch(/^evt_/);

    // A second publication of an already processed event (e.g. after the dedupe window) is acked, not handled again.
    await consumer.stop();
    await pool.query('UPDATE outbox SET published_at = NULL WHERE seq = (SELECT min(seq) FROM outbox)');
    const again = new EventConsumer(nc, uow, { durable: 'test-consumer', types: ['lead.created'], handle: async (event, tx) => {
      await tx.query('INSERT INTO handled (event_id, attempt) VALUES ($1, 2)', [event.id]);
    } }, log, new DeadLetters('crm', new DeadEventsRepository(pool), log, eventRetrySettings({})));
    await again.start();
    await relay.publishBatch();
    await change('after-restart');
    await waitUntil(async () => (await pool.query('SELECT count(*)::int AS n FROM handled WHERE attempt = 2')).rows[0].n === 1);
    const second = (await pool.query('SELECT event_id FROM handled WHERE attempt = 2')).rows;
    const afterId = (await pool.query(`SELECT id FROM outbox ORDER BY seq DESC LIMIT 1`)).rows[0].id;
    expect(second).toEqual([{ event_id: afterId }]);
    await again.stop();
    await relay.stop();
  });

  it('a row committed while a batch is being published goes out at once, not at the next idle poll', async () => {
    const nc = await mesh.natsClient();
    // the relay's own database, with a hook run just before a batch marks its rows published
    const relayDb = await openDatabase(2);
    const relayPool = relayDb.pool;
    let beforeMarking: (() => Promise<void>) | undefined;
    relayPool.on('connect', (client: any) => {
      const query = client.query.bind(client);
      client.query = async (...args: any[]) => {
        if (beforeMarking && typeof args[0] === 'string' && args[0].startsWith('UPDATE outbox SET published_at')) {
          const hook = beforeMarking;
          beforeMarking = undefined;
          await hook();
        }
        return query(...args);
      };
    });
    const published = async (id: string) =>
      (await pool.query(`SELECT published_at FROM outbox WHERE envelope->'data'->'object'->>'id' = $1`, [id])).rows[0]?.published_at != null;
    const relay = new OutboxRelay(relayDb.uow, new OutboxRepository(relayPool), nc, log, { idlePollMs: 60_000 });
    try {
      await relay.start();
      await new Promise((r) => setTimeout(r, 300)); // idle: the next wake-up is a NOTIFY or 60 s away
      beforeMarking = async () => {
        await change('during-batch'); // committed, and its NOTIFY sent, while the batch is in flight
        await new Promise((r) => setTimeout(r, 300));
      };
      await change('starts-batch');
      await waitUntil(() => published('starts-batch'), allowance(10_000));
      expect(beforeMarking).toBeUndefined();
      await waitUntil(() => published('during-batch'), 5_000);
    } finally {
      await relay.stop();
      await relayDb.dataSource.destroy();
    }
  });
});
