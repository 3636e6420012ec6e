import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SCANNED = ['apps', 'libs', 'test', 'tools'];

/** Every unit spec (`*.spec.ts`, the jest project `unit`) under the scanned folders. */
function unitSpecs(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) unitSpecs(path, found);
    else if (name.endsWith('.spec.ts')) found.push(path);
  }
  return found;
}

/**
 * What a unit spec may not use: the mesh harness, the tests' peers and process helpers, a
 * PostgreSQL or NATS client, a child process (kubectl through test/deploy/render too), a local
 * S3 server. A spec that needs one of them is an `*.integration-spec.ts` (or `*.e2e-spec.ts`),
 * so `npm run test:unit` runs in seconds on a machine with neither PostgreSQL nor NATS.
 */
const OUTSIDE_WORLD: Record<string, RegExp> = {
  'the mesh harness': /^import .* from '[./]+\/harness';/m,
  'a spawned service or peer': /\b(TestMesh|spawnApp|startDns|startSmtp|startTarpit|TcpProxy|startDemoSandbox|SmtpSink|ImapTestServer|startTlsPostgres)\b/,
  'a PostgreSQL client': /^import .* from '(pg|pg-cursor|pg-copy-streams)';|\bnew (Client|Pool)\(|\.initialize\(\)/m,
  'a NATS connection': /^import .*\bconnect\b.* from '@nats-io\/transport-node';/m,
  'a child process': /^import .* from '(node:)?child_process';/m,
  'a local S3 server': /require\('s3rver'\)/,
  'kubectl (test/deploy/render)': /^import .*\bkustomize\b.* from '\.\/render';/m,
};

/**
 * Unit specs that run a program to read the repository, offline: git's list of tracked files
 * (doc-paths) and `docker compose config` where the compose plugin is installed (compose).
 */
const READERS = new Set(['test/deploy/doc-paths.spec.ts', 'test/deploy/compose.spec.ts']);

describe('unit specs need no PostgreSQL, NATS, peers or processes', () => {
  const specs = SCANNED.flatMap((dir) => unitSpecs(join(ROOT, dir))).map((file) => relative(ROOT, file));

  it('finds the unit specs', () => {
    expect(specs.length).toBeGreaterThan(30);
  });

  it('no unit spec uses the harness, a peer, a database or bus client, or a child process', () => {
    const found: string[] = [];
    for (const spec of specs.filter((file) => file !== relative(ROOT, __filename))) {
      const text = readFileSync(join(ROOT, spec), 'utf8');
      for (const [what, pattern] of Object.entries(OUTSIDE_WORLD)) {
        if (what === 'a child process' && READERS.has(spec)) continue;
        if (pattern.test(text)) found.push(`${spec}: ${what}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('the unit project points DATABASE_URL, PGHOST and NATS_URL at nothing', () => {
    expect(new URL(process.env.DATABASE_URL!).port).toBe('9');
    expect(process.env.PGHOST).toMatch(/^\/nonexistent\//);
    expect(new URL(process.env.NATS_URL!).port).toBe('9');
  });

  it('the check sees what it looks for (a sample of each pattern is caught)', () => {
    const caught = (what: string, source: string) => OUTSIDE_WORLD[what].test(source);
    expect(caught('the mesh harness', "import { TestMesh } from '../harness';")).toBe(true);
    expect(caught('the mesh harness', "import { ApiResponse, TestMesh } from '../../harness';")).toBe(true);
    expect(caught('a spawned service or peer', 'second = await spawnApp(mesh, { name: "crm" });')).toBe(true);
    expect(caught('a spawned service or peer', 'const sink = await SmtpSink.start();')).toBe(true);
    expect(caught('a spawned service or peer', "import { APP_NODE_FLAGS } from '../../tools/mesh/processes';")).toBe(false);
    expect(caught('a PostgreSQL client', "import { Client } from 'pg';")).toBe(true);
    expect(caught('a PostgreSQL client', 'await dataSource.initialize();')).toBe(true);
    expect(caught('a PostgreSQL client', "const sample = \"import { Pool } from 'pg';\";")).toBe(false);
    expect(caught('a PostgreSQL client', "import type { UnitOfWork } from '@app/platform';")).toBe(false);
    expect(caught('a NATS connection', "import { connect, nkeys } from '@nats-io/transport-node';")).toBe(true);
    expect(caught('a NATS connection', "import { nkeys } from '@nats-io/transport-node';")).toBe(false);
    expect(caught('a child process', "import { spawnSync } from 'node:child_process';")).toBe(true);
    expect(caught('a local S3 server', "const S3rver = require('s3rver');")).toBe(true);
    expect(caught('kubectl (test/deploy/render)', "import { kustomize, loadYaml, Obj } from './render';")).toBe(true);
    expect(caught('kubectl (test/deploy/render)', "import { loadYaml } from './render';")).toBe(false);
  });
});
