import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Every TypeScript source under `dir`, specs left out (they may read a database to check it). */
function sources(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, found);
    else if (name.endsWith('.ts') && !/\.(spec|integration-spec|e2e-spec)\.ts$/.test(name)) found.push(relative(ROOT, path));
  }
  return found;
}

/** Files that may hold statements and the pool: repositories, stores, migrations, the DataSource files. */
const DATA_ACCESS_FILE = /(\.repository|\.store)\.ts$|\/migrations\/|\/migrations\.ts$|\/data-source\.ts$/;

/** What reaching the database looks like, in a file that is not a repository. */
const DATABASE_REACH: Record<string, RegExp> = {
  'the pool': /\bPG_POOL\b|^import .*\b(Pool|PoolClient|Client)\b.* from 'pg';/m,
  'the DataSource': /^import .*\bDataSource\b.* from 'typeorm';/m,
  'a TypeORM connection of its own': /\bcreateQueryRunner\(/,
  'a statement': /\.query(<[^>]*>)?\(|[`'"]\s*(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|WITH \w+ AS)\b/,
};

/** The platform's own services: they ask repositories (dead-events, outbox, processed-events) as the apps' do. */
const PLATFORM_SERVICES = ['dead-letters.ts', 'outbox-relay.ts', 'event-consumer.ts', 'events.ts', 'platform.module.ts'].map((f) => `libs/platform/src/${f}`);

function reaches(files: string[], kinds: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const kind of kinds) if (DATABASE_REACH[kind].test(text)) found.push(`${file}: ${kind}`);
  }
  return found;
}

/**
 * One way to reach the database (issue 22): a service asks for a unit of work and calls its
 * repositories, which own every statement and the pool; no service holds a pool or a connection.
 */
describe('data access goes through repositories', () => {
  const apps = sources(join(ROOT, 'apps'));

  it('outside repositories, stores and migrations, apps/ holds no pool, no connection and no statement', () => {
    expect(reaches(apps.filter((f) => !DATA_ACCESS_FILE.test(f)), Object.keys(DATABASE_REACH))).toEqual([]);
  });

  it("a repository's pool is its own (private), never handed out", () => {
    const exposed = apps
      .filter((f) => /\.(repository|store)\.ts$/.test(f))
      .filter((f) => /(?<!(private|protected) )readonly pool\b/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(exposed).toEqual([]);
  });

  it('the platform services (dead letters, outbox relay and gauge, event consumers) run no statement of their own', () => {
    expect(reaches(PLATFORM_SERVICES, ['a statement', 'a TypeORM connection of its own'])).toEqual([]);
  });

  it('the checks see what they look for (a sample of each pattern is caught)', () => {
    const caught = (kind: string, source: string) => DATABASE_REACH[kind].test(source);
    expect(caught('the pool', "import { Pool } from 'pg';")).toBe(true);
    expect(caught('the pool', '@Inject(PG_POOL) private readonly pool: Pool')).toBe(true);
    expect(caught('the pool', "import type { PoolConfig } from 'pg';")).toBe(false);
    expect(caught('a TypeORM connection of its own', 'const runner = this.dataSource.createQueryRunner();')).toBe(true);
    expect(caught('the DataSource', "import { DataSource, EntityManager } from 'typeorm';")).toBe(true);
    expect(caught('a statement', "await this.pool.query('SELECT 1')")).toBe(true);
    expect(caught('a statement', 'const { rows } = await db.query<Row>(sql, values);')).toBe(true);
    expect(caught('a statement', '`DELETE FROM outbox WHERE published_at < now()`')).toBe(true);
    expect(caught('a statement', '// every change takes the row lock (SELECT … FOR UPDATE)')).toBe(false);
    expect(/(?<!(private|protected) )readonly pool\b/.test('constructor(@Inject(PG_POOL) readonly pool: Pool) {}')).toBe(true);
    expect(/(?<!(private|protected) )readonly pool\b/.test('constructor(@Inject(PG_POOL) private readonly pool: Pool) {}')).toBe(false);
  });
});
