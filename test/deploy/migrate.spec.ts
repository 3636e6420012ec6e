import { Client } from 'pg';
import { SERVICE_NAMES } from '@app/contracts';
import { databaseUrlFor, dropDatabase } from '@app/platform';
import { migrateService, SERVICE_MIGRATIONS } from '../../tools/migrate';

const SERVER = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

describe('tools/migrate (the one-shot migration entry of the compose steps and Jobs)', () => {
  it('knows the migrations of every service', () => {
    expect(Object.keys(SERVICE_MIGRATIONS).sort()).toEqual([...SERVICE_NAMES].sort());
    for (const service of SERVICE_NAMES) expect(SERVICE_MIGRATIONS[service].length).toBeGreaterThan(0);
  });

  it('refuses an unknown service', async () => {
    await expect(migrateService('payments', { env: { DATABASE_URL: SERVER } })).rejects.toThrow(/unknown service "payments"/);
  });

  it('creates and migrates one service database, then finds it up to date', async () => {
    const env = { DATABASE_URL: SERVER, DB_PREFIX: `lim_migrate_${process.pid}_` };
    const url = databaseUrlFor('crm', env);
    try {
      const first = await migrateService('crm', { env });
      expect(first).toEqual(SERVICE_MIGRATIONS.crm.map((m) => m.id));
      expect(await migrateService('crm', { env })).toEqual([]);
      const client = new Client({ connectionString: url });
      await client.connect();
      const rows = (await client.query<{ id: string }>('SELECT id FROM schema_migrations ORDER BY id')).rows;
      await client.end();
      expect(rows.map((r) => r.id).sort()).toEqual(first.slice().sort());
    } finally {
      await dropDatabase(url);
    }
  });

  it('gives up on an unreachable server once the wait is over', async () => {
    const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/postgres' };
    let sleeps = 0;
    await expect(
      migrateService('search', { env, waitMs: 50, sleep: async () => void (sleeps += 1) }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(sleeps).toBeGreaterThan(0);
  });
});
