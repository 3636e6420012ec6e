import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { SERVICE_NAMES, ServiceName } from '@app/contracts';
import { ConfigError, databaseUrlFor, dropDatabase, ensureDatabase, MIGRATIONS_TABLE, revertLastMigration, runMigrations } from '@app/platform';
import { migrateService, revertServiceMigration, SERVICE_MIGRATIONS, showServiceMigrations } from '../../tools/migrate';

const SERVER = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const LEGACY_SCHEMAS = join(__dirname, 'legacy-schemas');

async function query<T = Record<string, unknown>>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** pg_dump of the schema, without the migration bookkeeping tables (the new one's and the old one's). */
function schemaDump(url: string): string {
  return execFileSync('pg_dump', ['--schema-only', '--no-owner', '--no-privileges', '-T', MIGRATIONS_TABLE, '-T', `${MIGRATIONS_TABLE}_id_seq`, '-T', 'schema_migrations', url], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => !/^\\(un)?restrict /.test(line)) // pg_dump's per-dump random key
    .join('\n');
}

/**
 * What a database's schema is made of, each part in a stable order (so a column dropped and added
 * again at the end of its table compares equal): columns with type, nullability, default,
 * generation and collation; indexes, constraints, functions, triggers, sequences, extensions.
 */
async function catalog(client: Client): Promise<Record<string, string[]>> {
  const sets: Record<string, string> = {
    columns: `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || udt_name || ' null=' || is_nullable || ' default=' || coalesce(column_default, '') || ' gen=' || coalesce(generation_expression, '') || ' coll=' || coalesce(collation_name, '') AS d
      FROM information_schema.columns WHERE table_schema = 'public' AND table_name NOT IN ('${MIGRATIONS_TABLE}', 'schema_migrations')`,
    tables: `SELECT c.relname || ' ' || c.relpersistence::text AS d FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname NOT IN ('${MIGRATIONS_TABLE}', 'schema_migrations')`,
    indexes: `SELECT indexdef AS d FROM pg_indexes WHERE schemaname = 'public' AND tablename NOT IN ('${MIGRATIONS_TABLE}', 'schema_migrations')`,
    constraints: `SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS d FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conrelid::regclass::text NOT IN ('${MIGRATIONS_TABLE}', 'schema_migrations')`,
    functions: `SELECT pg_get_functiondef(p.oid) AS d FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`,
    triggers: `SELECT pg_get_triggerdef(oid) AS d FROM pg_trigger WHERE NOT tgisinternal`,
    sequences: `SELECT sequence_name AS d FROM information_schema.sequences WHERE sequence_schema = 'public' AND sequence_name <> '${MIGRATIONS_TABLE}_id_seq'`,
    extensions: `SELECT extname AS d FROM pg_extension`,
  };
  const result: Record<string, string[]> = {};
  for (const [part, sql] of Object.entries(sets)) result[part] = (await client.query<{ d: string }>(sql)).rows.map((r) => r.d).sort();
  return result;
}

describe('tools/migrate (the one-shot migration entry of the compose steps and Jobs)', () => {
  const env = { DATABASE_URL: SERVER, DB_PREFIX: `lim_migrate_${process.pid}_` };

  it('knows the migrations of every service, each a TypeORM migration class with a down', () => {
    expect(Object.keys(SERVICE_MIGRATIONS).sort()).toEqual([...SERVICE_NAMES].sort());
    for (const service of SERVICE_NAMES) {
      expect(SERVICE_MIGRATIONS[service].length).toBeGreaterThan(0);
      for (const migration of SERVICE_MIGRATIONS[service]) {
        expect(migration.name).toMatch(/^[A-Z][A-Za-z]+\d{13}$/);
        expect(typeof migration.prototype.down).toBe('function');
      }
      const stamps = SERVICE_MIGRATIONS[service].map((m) => Number(m.name.slice(-13)));
      expect(stamps).toEqual([...stamps].sort((a, b) => a - b)); // listed in the order TypeORM runs them
    }
  });

  it('refuses an unknown service', async () => {
    await expect(migrateService('payments', { env: { DATABASE_URL: SERVER } })).rejects.toThrow(/unknown service "payments"/);
  });

  it('creates and migrates one service database, shows it applied, then finds it up to date', async () => {
    const url = databaseUrlFor('crm', env);
    try {
      const names = SERVICE_MIGRATIONS.crm.map((m) => m.name);
      expect((await showServiceMigrations('crm', { env })).every((m) => !m.applied)).toBe(true);
      expect(await migrateService('crm', { env })).toEqual(names);
      expect(await migrateService('crm', { env })).toEqual([]);
      expect(await showServiceMigrations('crm', { env })).toEqual(names.map((name) => ({ name, applied: true })));
      const rows = await query<{ name: string }>(url, `SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`);
      expect(rows.map((r) => r.name)).toEqual(names);

      expect(await revertServiceMigration('crm', { env })).toBe(names[names.length - 1]);
      expect((await showServiceMigrations('crm', { env })).filter((m) => !m.applied).map((m) => m.name)).toEqual([names[names.length - 1]]);
      expect(await migrateService('crm', { env })).toEqual([names[names.length - 1]]);
    } finally {
      await dropDatabase(url);
    }
  });

  it("each service's data-source.ts is what the TypeORM CLI loads: migration:show lists that service's history", async () => {
    const url = databaseUrlFor('webhooks', env);
    try {
      await migrateService('webhooks', { env });
      await query(url, `DELETE FROM ${MIGRATIONS_TABLE} WHERE name = '${SERVICE_MIGRATIONS.webhooks[SERVICE_MIGRATIONS.webhooks.length - 1].name}'`);
      const cli = join(__dirname, '../../node_modules/typeorm/cli.js');
      const source = join(__dirname, '../../dist/apps/webhooks/src/data-source.js');
      const out = spawnSync(process.execPath, [cli, 'migration:show', '-d', source], { env: { ...process.env, ...env }, encoding: 'utf8' }).stdout;
      const names = SERVICE_MIGRATIONS.webhooks.map((m) => m.name);
      for (const name of names.slice(0, -1)) expect(out).toMatch(new RegExp(`\\[X\\] \\d+ ${name}`));
      expect(out).toContain(`[ ] ${names[names.length - 1]}`);
    } finally {
      await dropDatabase(url);
    }
  });

  it('migrates once when replicas and the migration Job start together (the advisory lock)', async () => {
    const url = databaseUrlFor('billing', env);
    try {
      const runs = await Promise.all([1, 2, 3, 4].map(() => migrateService('billing', { env })));
      expect(runs.flat().sort()).toEqual(SERVICE_MIGRATIONS.billing.map((m) => m.name).sort());
      const rows = await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM ${MIGRATIONS_TABLE}`);
      expect(rows[0].n).toBe(SERVICE_MIGRATIONS.billing.length);
    } finally {
      await dropDatabase(url);
    }
  });

  it("search: the removed layouts' indexes are dropped by a migration, the rank bands (as the build before left them) and a RUM index per lens (what SEARCH_INDEX=rum left behind), rows kept, replicas at once doing it once; SEARCH_INDEX=bands and rum are refused, saying they were removed", async () => {
    const url = databaseUrlFor('search', env);
    const ranking = async () => (await query<{ name: string; am: string }>(url,
      `SELECT c.relname AS name, a.amname AS am FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
        WHERE i.indrelid IN (to_regclass('entities_rank'), 'entities'::regclass) AND a.amname <> 'btree' ORDER BY 1`)).map((r) => `${r.name} ${r.am}`);
    const lenses = ['leads', 'investors', 'researchers', 'grants'];
    const bands = lenses.flatMap((lens) => Array.from({ length: 12 }, (_, i) => `entities_terms_${lens}_b${i} gin`)).sort();
    const rum = lenses.map((lens) => `entities_rum_${lens} gin`).sort();
    const drop = 'DropRankBands1764000019000';
    const after = SERVICE_MIGRATIONS.search.map((m) => m.name).slice(SERVICE_MIGRATIONS.search.findIndex((m) => m.name === drop) + 1);
    // back to the database as it was before the drop: the migrations after it undone, then it
    const revertToBefore = async () => {
      for (const name of [...after].reverse()) expect(await revertServiceMigration('search', { env })).toBe(name);
      expect(await revertServiceMigration('search', { env })).toBe(drop);
    };
    try {
      expect(await migrateService('search', { env })).toEqual(SERVICE_MIGRATIONS.search.map((m) => m.name));
      expect(await ranking()).toEqual([]);
      await query(url, `INSERT INTO entities (id, ext_key, lens, name, rank_score, search_text, terms) VALUES ('ent_1', 'k:1', 'leads', 'A', 7, 'fintech', to_tsvector('simple', 'fintech'))`);
      // the database as the build before this migration left it: the band indexes
      await revertToBefore();
      expect(await ranking()).toEqual(bands);
      for (const removed of ['bands', 'rum']) {
        await expect(migrateService('search', { env: { ...env, SEARCH_INDEX: removed } })).rejects.toThrow(ConfigError);
        await expect(migrateService('search', { env: { ...env, SEARCH_INDEX: removed } }))
          .rejects.toThrow(new RegExp(`^SEARCH_INDEX=${removed} was removed \\(.*\\): unset SEARCH_INDEX \\(or set memory\\)`));
      }
      expect(await ranking()).toEqual(bands);
      const runs = await Promise.all([undefined, 'memory', ''].map((index) => migrateService('search', { env: { ...env, SEARCH_INDEX: index } })));
      expect(runs.flat()).toEqual([drop, ...after]);
      expect(await ranking()).toEqual([]);

      // what SEARCH_INDEX=rum left behind: no band index, one index per lens by the names it gave them
      // (built here with GIN: the rum access method needs an extension this server need not have, and
      // the drop goes by those names)
      await revertToBefore();
      await query(url, bands.map((b) => `DROP INDEX ${b.split(' ')[0]};`).join('\n'));
      for (const lens of lenses) await query(url, `CREATE INDEX entities_rum_${lens} ON entities_rank USING gin (terms) WHERE lens = '${lens}'`);
      expect(await ranking()).toEqual(rum);
      // entities_rank as the build before left it (1764000023000's down fills it from entities)
      expect(await query(url, `SELECT id FROM entities_rank WHERE lens = 'leads' AND terms @@ 'fintech'::tsquery`)).toEqual([{ id: 'ent_1' }]);
      expect(await migrateService('search', { env })).toEqual([drop, ...after]);
      expect(await ranking()).toEqual([]);
      // entities_rank gone (1764000023000), the row kept
      expect(await query(url, `SELECT to_regclass('entities_rank') AS t`)).toEqual([{ t: null }]);
      expect(await query(url, `SELECT id FROM entities WHERE lens = 'leads' AND terms @@ 'fintech'::tsquery`)).toEqual([{ id: 'ent_1' }]);
      expect(await migrateService('search', { env })).toEqual([]);
      await expect(migrateService('search', { env: { ...env, SEARCH_INDEX: 'elastic' } })).rejects.toThrow(/SEARCH_INDEX must be memory \(or unset\), got "elastic"/);
    } finally {
      await dropDatabase(url);
    }
  });

  it("search: details and sources become json (1764000024000), each row's text as jsonb wrote it; reverted, jsonb again with the same values", async () => {
    const url = databaseUrlFor('search', env);
    const json = 'EntitiesJson1764000024000';
    // the search migrations after it, oldest first
    const names = SERVICE_MIGRATIONS.search.map((m) => m.name);
    const after = names.slice(names.indexOf(json) + 1);
    const types = async () => (await query<{ c: string }>(url,
      `SELECT column_name || ' ' || data_type || ' ' || column_default || ' null=' || is_nullable AS c FROM information_schema.columns
        WHERE table_name = 'entities' AND column_name IN ('details', 'sources') ORDER BY 1`)).map((r) => r.c);
    const rows = () => query<{ id: string; d: string; s: string }>(url, 'SELECT id, details::text AS d, sources::text AS s FROM entities ORDER BY id');
    try {
      expect(await migrateService('search', { env })).toContain(json);
      // the migrations after it reverted first (each its own down, newest first), then it
      for (const later of [...after].reverse()) expect(await revertServiceMigration('search', { env })).toBe(later);
      expect(await revertServiceMigration('search', { env })).toBe(json);
      expect(await types()).toEqual(["details jsonb '{}'::jsonb null=NO", "sources jsonb '[]'::jsonb null=NO"]);
      await query(url, `INSERT INTO entities (id, ext_key, lens, name, details, sources, terms) VALUES
        ('ent_1', 'k:1', 'investors', 'A', '{"stages":["seed"],"email":"a@b.example","type":"vc"}', '[{"field":"name","value":"A \\u00e9"}]', ''::tsvector),
        ('ent_2', 'k:2', 'leads', 'B', DEFAULT, DEFAULT, ''::tsvector)`);
      const before = await rows();
      expect(before[0]).toEqual({ id: 'ent_1', d: '{"type": "vc", "email": "a@b.example", "stages": ["seed"]}', s: '[{"field": "name", "value": "A é"}]' });
      expect(await migrateService('search', { env })).toEqual([json, ...after]);
      expect(await types()).toEqual(["details json '{}'::json null=NO", "sources json '[]'::json null=NO"]);
      // the text as jsonb wrote it, rows written before (`"key": `, jsonb's key order): search's contact check reads both spellings
      expect(await rows()).toEqual(before);
      await query(url, `INSERT INTO entities (id, ext_key, lens, name, details, terms) VALUES ('ent_3', 'k:3', 'leads', 'C', '{"b":1,"a":[2]}', ''::tsvector)`);
      expect((await rows())[2]).toEqual({ id: 'ent_3', d: '{"b":1,"a":[2]}', s: '[]' });
      for (const later of [...after].reverse()) expect(await revertServiceMigration('search', { env })).toBe(later);
      expect(await revertServiceMigration('search', { env })).toBe(json);
      expect(await types()).toEqual(["details jsonb '{}'::jsonb null=NO", "sources jsonb '[]'::jsonb null=NO"]);
      expect(await rows()).toEqual([...before, { id: 'ent_3', d: '{"a": [2], "b": 1}', s: '[]' }]);
    } finally {
      await dropDatabase(url);
    }
  });

  it('gives up on an unreachable server once the wait is over', async () => {
    const unreachable = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/postgres' };
    let sleeps = 0;
    await expect(
      // a wait longer than one refused attempt takes on a loaded machine (one took over 50 ms), slept 10 ms at a time
      migrateService('search', {
        env: unreachable,
        waitMs: 500,
        sleep: async () => {
          sleeps += 1;
          await new Promise((resolve) => setTimeout(resolve, 10));
        },
      }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(sleeps).toBeGreaterThan(0);
  });

  describe.each(SERVICE_NAMES.map((s) => [s]))('%s', (service: ServiceName) => {
    it('a database the migrator before TypeORM made upgrades in place to the schema this version creates', async () => {
      const legacy = databaseUrlFor(service, { ...env, DB_PREFIX: `${env.DB_PREFIX}legacy_` });
      const fresh = databaseUrlFor(service, { ...env, DB_PREFIX: `${env.DB_PREFIX}fresh_` });
      try {
        await ensureDatabase(legacy);
        execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-f', join(LEGACY_SCHEMAS, `${service}.sql`), legacy], { stdio: ['ignore', 'ignore', 'pipe'] });
        const legacyIds = new Set((await query<{ id: string }>(legacy, 'SELECT id FROM schema_migrations')).map((r) => r.id));
        const applied = await runMigrations(legacy, SERVICE_MIGRATIONS[service]);
        // only what the old migrator had not applied runs; the rest is adopted
        const expected = SERVICE_MIGRATIONS[service].filter((m) => !legacyIds.has((new m() as { legacyId?: string }).legacyId ?? '')).map((m) => m.name);
        expect(applied).toEqual(expected);
        expect(await runMigrations(legacy, SERVICE_MIGRATIONS[service])).toEqual([]);
        await runMigrations(fresh, SERVICE_MIGRATIONS[service]);
        expect(schemaDump(legacy)).toEqual(schemaDump(fresh));
        // the old migrator's record stays, so a replica of the previous version restarting mid-deploy does nothing
        expect(await query(legacy, 'SELECT count(*)::int AS n FROM schema_migrations')).toEqual([{ n: legacyIds.size }]);
      } finally {
        await dropDatabase(legacy);
        await dropDatabase(fresh);
      }
    });

    it('every down undoes its up: reverted one by one, the schema is each earlier one again', async () => {
      const url = databaseUrlFor(service, { ...env, DB_PREFIX: `${env.DB_PREFIX}roundtrip_` });
      const migrations = SERVICE_MIGRATIONS[service];
      try {
        await ensureDatabase(url);
        // one session reads the catalog after every step (2k+1 reads for k migrations): a session
        // sees each committed DDL of the migrator's own connections, and its catalog caches stay warm
        const reader = new Client({ connectionString: url });
        await reader.connect();
        try {
          const states = [await catalog(reader)];
          for (let k = 1; k <= migrations.length; k++) {
            expect(await runMigrations(url, migrations.slice(0, k))).toEqual([migrations[k - 1].name]);
            states.push(await catalog(reader));
          }
          for (let k = migrations.length; k >= 1; k--) {
            expect(await revertLastMigration(url, migrations)).toBe(migrations[k - 1].name);
            expect({ after_reverting: migrations[k - 1].name, ...(await catalog(reader)) }).toEqual({ after_reverting: migrations[k - 1].name, ...states[k - 1] });
          }
          expect(await revertLastMigration(url, migrations)).toBeNull();
        } finally {
          await reader.end();
        }
      } finally {
        await dropDatabase(url);
      }
    });
  });
});
