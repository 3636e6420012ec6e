import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Client } from 'pg';
import { SUBJECTS } from '@app/contracts/subjects';
import { GATEWAY_MIGRATIONS } from '../../../apps/gateway/src/migrations';
import { freePort, ROOT } from '../../../tools/mesh/processes';
import { onPgServer, PG_SERVER_URL, TestMesh } from '../../harness';

const ADMIN = join(ROOT, 'dist/apps/admin/src/main.js');
const SAMPLE = join(ROOT, 'apps/search/samples/openalex-authors.json');

/** The admin CLI as an operator meets it: help, the errors it prints, what it leaves alone. */
describe('admin CLI', () => {
  let mesh: TestMesh;

  beforeAll(async () => {
    mesh = await TestMesh.start(['gateway', 'search']);
  });
  afterAll(async () => {
    await mesh?.close();
  });

  const admin = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [ADMIN, ...args], { env: { ...mesh.env, ...env }, cwd: ROOT }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    });
  const withServer = onPgServer;

  describe('help', () => {
    it('--help (and help, -h): the usage and every command on stdout, exit 0, without touching a database', async () => {
      const unreachable = { DATABASE_URL: `postgres://127.0.0.1:${await freePort()}/postgres` };
      for (const flag of ['--help', 'help', '-h']) {
        const { code, stdout, stderr } = await admin([flag], unreachable);
        expect({ flag, code, stderr }).toEqual({ flag, code: 0, stderr: '' });
        expect(stdout).toMatch(/^usage: npm run -s admin -- <command> \[--flag value \.\.\.\]\n/);
        for (const name of ['workspace:create', 'member:add', 'key:create', 'credits:grant', 'mailbox:create', 'search:seed', 'ingest']) {
          expect(stdout).toMatch(new RegExp(`\\n  ${name} +\\S`));
        }
        expect(stdout).toContain('npm run -s admin -- <command> --help');
      }
    });

    it('key:create --help: its usage line, what it does and an example, exit 0', async () => {
      const { code, stdout, stderr } = await admin(['key:create', '--help'], { DATABASE_URL: `postgres://127.0.0.1:${await freePort()}/postgres` });
      expect(code).toBe(0);
      expect(stderr).toBe('');
      expect(stdout.split('\n')[0]).toBe('usage: npm run -s admin -- key:create --workspace <ws_id> --mode live|test [--name <n>] [--member <usr_id>]');
      expect(stdout).toContain('An API key (svc_live_... or svc_test_...)');
      expect(stdout).toContain('example: npm run -s admin -- key:create --workspace ws_... --mode test');
      expect((await admin(['help', 'key:create'])).stdout).toBe(stdout);
    });

    it('a bare invocation: the usage on stderr, exit 2', async () => {
      const { code, stdout, stderr } = await admin([]);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^error: a command is required\nusage: npm run -s admin -- <command>/);
    });
  });

  describe('usage errors', () => {
    it('an unknown command: exit 2, nothing on stdout, the nearest command and where the list is on stderr', async () => {
      const { code, stdout, stderr } = await admin(['key:creat', '--workspace', 'ws_x']);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toBe("error: unknown command 'key:creat'\ndid you mean key:create? npm run -s admin -- --help lists the commands\n");
      expect((await admin(['frobnicate'])).stderr).toBe("error: unknown command 'frobnicate'\nnpm run -s admin -- --help lists the commands\n");
    });

    it('a missing flag: named, with the command and its usage line, before any connection is tried', async () => {
      const { code, stdout, stderr } = await admin(['key:create', '--mode', 'test'], { DATABASE_URL: `postgres://127.0.0.1:${await freePort()}/postgres` });
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toBe(
        'error: key:create: --workspace is required\n' +
          'usage: npm run -s admin -- key:create --workspace <ws_id> --mode live|test [--name <n>] [--member <usr_id>]\n' +
          'npm run -s admin -- key:create --help for more\n',
      );
    });

    it('an unknown flag and a bad value: named, with the usage line', async () => {
      const unknown = await admin(['key:create', '--workspace', 'ws_x', '--mode', 'test', '--colour', 'red']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/^error: key:create: unknown option --colour\nusage: npm run -s admin -- key:create /);
      const bad = await admin(['key:create', '--workspace', 'ws_x', '--mode', 'sandbox']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/^error: key:create: --mode must be one of live, test\nusage: /);
    });
  });

  describe('settings named in errors', () => {
    it('an unreachable NATS_URL, for a command that asks a service: which server, which setting, why', async () => {
      const { workspace } = await mesh.workspace();
      const port = await freePort();
      const { code, stderr } = await admin(['credits:grant', '--workspace', workspace.id, '--pool', 'pack', '--amount', '5'], { NATS_URL: `nats://ops:hunter2@127.0.0.1:${port}` });
      expect(code).toBe(1);
      expect(stderr).toBe(`error: cannot reach NATS at nats://127.0.0.1:${port} (NATS_URL): connection refused; billing.credits.grant is answered by the billing service over NATS\n`);
    });

    it('a service that is not running: named, with the NATS server asked', async () => {
      const { workspace } = await mesh.workspace();
      const { code, stderr } = await admin(['credits:grant', '--workspace', workspace.id, '--pool', 'pack', '--amount', '5']);
      expect(code).toBe(1);
      expect(stderr).toBe(`error: could not reach billing.credits.grant: no billing service is running on NATS at ${mesh.natsUrl} (NATS_URL)\n`);
    });
  });

  describe('no migrations on ordinary commands', () => {
    it('database settings are the gateway\'s: whatever DATABASE_URL, GATEWAY_DATABASE_URL or DB_PREFIX the CLI is given, the gateway answers and no database is created or touched', async () => {
      const port = await freePort();
      const prefix = `${mesh.dbPrefix}none_`;
      const empty = `${mesh.dbPrefix}empty_`;
      await withServer((c) => c.query(`CREATE DATABASE "${empty}gateway"`));
      const unknownRole = new URL(PG_SERVER_URL);
      unknownRole.username = 'devx_no_such_role';
      const settings: Record<string, string>[] = [
        { DATABASE_URL: `postgres://ops:hunter2@127.0.0.1:${port}/postgres` },
        { GATEWAY_DATABASE_URL: `postgres://127.0.0.1:${port}/gw` },
        { DATABASE_URL: unknownRole.toString() },
        { DB_PREFIX: prefix },
        { DB_PREFIX: empty },
      ];
      for (const env of settings) {
        const { code, stdout, stderr } = await admin(['workspace:create', '--name', 'Elsewhere'], env);
        expect({ env, code, stderr }).toEqual({ env, code: 0, stderr: '' });
        expect(JSON.parse(stdout)).toMatchObject({ id: expect.stringMatching(/^ws_/), plan: 'agency' });
      }
      const found = await withServer((c) => c.query('SELECT 1 FROM pg_database WHERE datname = $1', [`${prefix}gateway`]));
      expect(found.rowCount).toBe(0);
      const url = new URL(PG_SERVER_URL);
      url.pathname = `/${empty}gateway`;
      const client = new Client({ connectionString: url.toString() });
      await client.connect();
      const tables = await client.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'");
      await client.end();
      expect(tables.rows[0].n).toBe(0);
    });

    it("a gateway database behind this version: the missing migration named, none applied; the running gateway's table untouched by ordinary commands", async () => {
      const before = await mesh.query('gateway', 'SELECT id, "timestamp", name FROM typeorm_migrations ORDER BY id');
      expect(before.map((r) => r.name).sort()).toEqual(GATEWAY_MIGRATIONS.map((m) => m.name).sort());
      await mesh.workspace();
      expect(await mesh.query('gateway', 'SELECT id, "timestamp", name FROM typeorm_migrations ORDER BY id')).toEqual(before);

      const last = GATEWAY_MIGRATIONS[GATEWAY_MIGRATIONS.length - 1].name;
      const recorded = before.find((r) => r.name === last);
      await mesh.query('gateway', 'DELETE FROM typeorm_migrations WHERE name = $1', [last]);
      try {
        const { code, stderr } = await admin(['workspace:create', '--name', 'Behind']);
        expect(code).toBe(1);
        expect(stderr).toContain(`lacks 1 migration(s) of this version (${last}): start the gateway once`);
        expect(await mesh.query('gateway', 'SELECT 1 FROM typeorm_migrations WHERE name = $1', [last])).toHaveLength(0);
      } finally {
        await mesh.query('gateway', 'INSERT INTO typeorm_migrations (id, "timestamp", name) VALUES ($1, $2, $3)', [recorded.id, recorded.timestamp, last]);
      }
    });
  });

  describe('progress of long jobs', () => {
    it('ingest on a terminal: a progress line on stderr, stdout still one JSON object', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'admin-tty-'));
      const out = join(dir, 'stdout.json');
      // script(1) gives the command a terminal for stderr; stdout goes to a file
      const terminal = await new Promise<{ code: number; text: string }>((resolve) => {
        execFile('script', ['-qec', `'${process.execPath}' '${ADMIN}' ingest --provider openalex --file '${SAMPLE}' > '${out}'`, '/dev/null'], { env: { ...mesh.env }, cwd: ROOT }, (err, stdout) =>
          resolve({ code: err ? 1 : 0, text: stdout }),
        );
      });
      expect(terminal.code).toBe(0);
      const result = JSON.parse(readFileSync(out, 'utf8'));
      expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(1);
      expect(result).toMatchObject({ provider: 'openalex' });
      expect(terminal.text).toMatch(new RegExp(`\\ringest openalex \\[#{30}\\] ${result.records}/${result.records} \\(\\d+/s\\)`));
    });

    it('ingest piped: nothing on stderr, the same JSON object on stdout', async () => {
      const { code, stdout, stderr } = await admin(['ingest', '--provider', 'openalex', '--file', SAMPLE]);
      expect(code).toBe(0);
      expect(stderr).toBe('');
      expect(stdout.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(stdout)).toMatchObject({ provider: 'openalex', inserted: 0 });
    });

    it('ingest piped with ADMIN_PROGRESS=1: whole progress lines on stderr; batches in flight at once, every record written once, again as updates', async () => {
      const records = Array.from({ length: 2500 }, (_, i) => ({
        id: `https://openalex.org/A77${String(i).padStart(8, '0')}`, display_name: `Progressa Person ${i}`, works_count: i,
        last_known_institutions: [{ display_name: 'Progress University', country_code: 'US', type: 'education' }], topics: [{ display_name: 'Bulk Loading' }],
      }));
      const file = join(mkdtempSync(join(tmpdir(), 'admin-ingest-')), 'openalex.json');
      writeFileSync(file, JSON.stringify({ meta: { count: records.length }, results: records }));
      const first = await admin(['ingest', '--provider', 'openalex', '--file', file], { ADMIN_PROGRESS: '1', SEED_PARALLEL: '3' });
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({ provider: 'openalex', records: 2500, inserted: 2500, updated: 0 });
      const lines = first.stderr.trimEnd().split('\n');
      for (const line of lines) expect(line).toMatch(/^ingest openalex \[[#.]{30}\] \d+\/2500 \(\d+\/s(, \d+ s left)?\)$/);
      expect(lines[lines.length - 1]).toMatch(/^ingest openalex \[#{30}\] 2500\/2500 \(\d+\/s\)$/);
      const stored = async () => (await mesh.query('search', "SELECT count(*)::int AS n FROM entities WHERE ext_key LIKE 'openalex:A77%' AND name LIKE 'Progressa Person %'"))[0].n;
      expect(await stored()).toBe(2500);
      const again = await admin(['ingest', '--provider', 'openalex', '--file', file], { SEED_PARALLEL: '3' });
      expect(JSON.parse(again.stdout)).toMatchObject({ records: 2500, inserted: 0, updated: 2500 });
      expect(again.stderr).toBe('');
      expect(await stored()).toBe(2500);
    });

    it('ingest of a gzipped JSON Lines file: streamed in batches with progress by the part of the file read, every record once, again as updates; a bad line named', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'admin-jsonl-'));
      const record = (i: number) => ({
        id: `https://openalex.org/A88${String(i).padStart(8, '0')}`, display_name: `Streamed Person ${i}`, works_count: i,
        last_known_institutions: [{ display_name: 'Stream University', country_code: 'DE', type: 'education' }], topics: [{ display_name: 'Line Reading' }],
      });
      // one record a line as OpenAlex's snapshot holds them, a blank line and a page of two records among them
      const lines = Array.from({ length: 2498 }, (_, i) => JSON.stringify(record(i)));
      lines.splice(1000, 0, '', JSON.stringify({ results: [record(2498), record(2499)] }));
      const file = join(dir, 'authors.jsonl.gz');
      writeFileSync(file, gzipSync(`${lines.join('\n')}\n`));
      const first = await admin(['ingest', '--provider', 'openalex', '--file', file], { ADMIN_PROGRESS: '1', SEED_PARALLEL: '2' });
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({ provider: 'openalex', records: 2500, inserted: 2500, updated: 0 });
      const progressLines = first.stderr.trimEnd().split('\n');
      for (const line of progressLines) expect(line).toMatch(/^ingest openalex \[[#.]{30}\] \d+ records, \d+% of the file \(\d+\/s(, \d+ s left)?\)$/);
      expect(progressLines[progressLines.length - 1]).toMatch(/^ingest openalex \[#{30}\] 2500 records, 100% of the file \(\d+\/s\)$/);
      const stored = async () => (await mesh.query('search', "SELECT count(*)::int AS n FROM entities WHERE ext_key LIKE 'openalex:A88%' AND name LIKE 'Streamed Person %'"))[0].n;
      expect(await stored()).toBe(2500);
      const again = await admin(['ingest', '--provider', 'openalex', '--file', file]);
      expect(JSON.parse(again.stdout)).toEqual({ provider: 'openalex', records: 2500, inserted: 0, updated: 2500 });
      expect(again.stderr).toBe('');

      const broken = join(dir, 'broken.ndjson');
      writeFileSync(broken, `${JSON.stringify(record(0))}\n{"id": "https://openalex.org/A1", \n`);
      const refused = await admin(['ingest', '--provider', 'openalex', '--file', broken]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^error: cannot ingest .*broken\.ndjson: line 2: not JSON/);
      expect(refused.stdout).toBe('');
      const xml = await admin(['ingest', '--provider', 'sec_edgar', '--file', broken]);
      expect(xml.code).toBe(1);
      expect(xml.stderr).toContain('JSON Lines are read for openalex, orcid, nih_reporter, nsf_awards, opencorporates; sec_edgar exports are XML');
      expect(await stored()).toBe(2500);
    });

    it('search.ingest: merge is a boolean; a batch of no entities writes nothing', async () => {
      const refused = await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities: [], merge: 'later' });
      expect(refused.err).toMatchObject({ code: 'invalid_request', param: 'merge' });
      expect(await mesh.rpc(SUBJECTS.search.ingest, { workspace_id: 'operator' }, { entities: [] })).toEqual({ response: { inserted: 0, updated: 0 }, err: undefined });
    });
  });
});
