import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, SecuredNats, startNatsServer } from '../../../tools/mesh/processes';
import { COMMANDS } from './commands';
import { commandHelp, overview, requiredFlags, SETTINGS, unknownCommandHint } from './help';

/** The help is built from each command's own row: every row must be complete and consistent. */
describe('admin CLI help rows', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s: a summary, an example of itself, usage flags it accepts', (_name, command) => {
    expect(command.summary).toBeTruthy();
    expect(command.example?.startsWith(`${command.name} `)).toBe(true);
    const used = [...command.usage.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]);
    expect(used.filter((f) => !command.flags.includes(f))).toEqual([]);
    const exampleFlags = [...command.example!.matchAll(/ --([a-z][a-z-]*)/g)].map((m) => m[1]);
    expect(requiredFlags(command).filter((f) => !exampleFlags.includes(f))).toEqual([]);
  });

  it('reads required flags from the usage line: outside [optional] and (one-of) groups', () => {
    const row = (usage: string) => requiredFlags({ name: 'x', usage, flags: [], run: async () => undefined });
    expect(row('--workspace <ws_id> --mode live|test [--name <n>] [--member <usr_id>]')).toEqual(['workspace', 'mode']);
    expect(row('(--email <addr> | --domain <domain>) [--workspace <ws_id>]')).toEqual([]);
    expect(row('--count <n> [--start <n> [--step <n>]]')).toEqual(['count']);
  });

  it('lists every command in the overview and suggests the nearest name', () => {
    const text = overview(COMMANDS);
    for (const c of COMMANDS) expect(text).toMatch(new RegExp(`\\n  ${c.name} +\\S`));
    expect(text.split('\n').every((line) => line.length <= 100)).toBe(true);
    expect(unknownCommandHint('credit:grant', COMMANDS)).toMatch(/^did you mean credits:grant\? /);
    expect(unknownCommandHint('zzz', COMMANDS)).toBe('npm run -s admin -- --help lists the commands');
    const key = COMMANDS.find((c) => c.name === 'key:create')!;
    expect(commandHelp(key).split('\n')[0]).toBe(`usage: npm run -s admin -- key:create ${key.usage}`);
  });
});

/**
 * The settings the help names are the environment the CLI reads, both ways. What it reads is
 * recorded by running the built CLI (dist/, `npm run -s build`) with process.env behind a Proxy
 * that notes every name our own code (not a package's) looks up, through the paths a command
 * takes: no bus, and a real nats-server with the operator's identity but no service on it. The
 * CLI's own sources are also scanned, for settings on paths those runs do not reach.
 */
describe('admin CLI help: the settings it names', () => {
  const ROOT = join(__dirname, '..', '..', '..');
  const MAIN = join(ROOT, 'dist/apps/admin/src/main.js');
  const ENV_NAME = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g;
  let dir: string;
  let nats: SecuredNats | undefined;

  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm run -s build first`);
    dir = mkdtempSync(join(tmpdir(), 'admin-env-'));
  });
  afterAll(() => {
    nats?.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the CLI in an empty directory with exactly `env`; the names its own code read. */
  function run(args: string[], env: Record<string, string>): { status: number | null; stderr: string; reads: string[] } {
    const preload = join(dir, 'record-env.js');
    const out = join(dir, `reads-${args[0]}.json`);
    writeFileSync(
      preload,
      `const { writeFileSync } = require('node:fs');
const real = process.env;
const reads = new Set();
const ours = () => {
  const frame = (new Error().stack || '').split('\\n').slice(1).find((line) => !line.includes(__filename));
  return Boolean(frame && frame.includes(${JSON.stringify(join(ROOT, 'dist'))}) && !frame.includes('node_modules'));
};
const note = (key) => { if (typeof key === 'string' && ours()) reads.add(key); };
process.env = new Proxy(real, {
  get(target, key) { note(key); return Reflect.get(target, key); },
  has(target, key) { note(key); return Reflect.has(target, key); },
  getOwnPropertyDescriptor(target, key) { note(key); return Reflect.getOwnPropertyDescriptor(target, key); },
});
process.on('exit', () => writeFileSync(${JSON.stringify(out)}, JSON.stringify([...reads])));
`,
    );
    const result = spawnSync(process.execPath, ['-r', preload, MAIN, ...args], { cwd: dir, env, encoding: 'utf8', timeout: 30_000 });
    return { status: result.status, stderr: result.stderr, reads: JSON.parse(readFileSync(out, 'utf8')) as string[] };
  }

  /** Setting names the CLI's own sources read (process.env.X, env.X, env['X'], envInt(env, 'X', …)). */
  function namesInSources(): string[] {
    const names = new Set<string>();
    const walk = (at: string) => {
      for (const entry of readdirSync(at, { withFileTypes: true })) {
        const path = join(at, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts') && !/spec\.ts$/.test(entry.name)) {
          const source = readFileSync(path, 'utf8');
          for (const m of source.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)|\[\s*'([A-Z][A-Z0-9_]*)'\s*\])|\benv\w*\(\s*env\s*,\s*'([A-Z][A-Z0-9_]*)'/g)) names.add(m[1] ?? m[2] ?? m[3]);
        }
      }
    };
    walk(__dirname);
    return [...names];
  }

  it('names every setting the CLI reads and no other', async () => {
    const help = run(['--help'], {});
    expect(help.status).toBe(0);

    // no bus answers: the operator's settings are read, then the bus is named as unreachable
    const closed = await freePort();
    const noBus = run(['workspace:create', '--name', 'Acme'], { NATS_URL: `nats://127.0.0.1:${closed}` });
    expect(noBus.status).toBe(1);
    expect(noBus.stderr).toMatch(/cannot reach NATS at nats:\/\/127\.0\.0\.1:\d+ \(NATS_URL\)/);

    // a real bus with the operator's identity and no search service: connected, then no responders
    const port = await freePort();
    nats = await startNatsServer(port, join(dir, 'nats'));
    // asked once (ADMIN_RETRIES, which the CLI reads whether set or not): the default five tries,
    // each through the no-responders grace and 1, 2, 4, 8 s pauses, took 23 s to say the same
    const seed = run(['search:seed', '--count', '1'], { NATS_URL: `nats://127.0.0.1:${port}`, NATS_NKEY_SEED_FILE: nats.identities.seedFile('operator'), ADMIN_RETRIES: '1' });
    expect(seed.status).toBe(1);
    expect(seed.stderr).toMatch(/no search service is running on NATS/);

    // no bus needed: the outbox is files
    const outbox = run(['mail:outbox'], { MAIL_OUTBOX_DIR: join(dir, 'outbox') });
    expect(outbox.status).toBe(0);

    const read = new Set([...help.reads, ...noBus.reads, ...seed.reads, ...outbox.reads, ...namesInSources()]);
    // the runs did reach the operator's identity, TLS, the connection and search:seed's batching
    expect([...read]).toEqual(expect.arrayContaining(['NATS_URL', 'NATS_NKEY_SEED_FILE', 'NODE_ENV', 'NATS_TLS_CA_FILE', 'NATS_COALESCE_WRITES', 'SEED_CHUNK']));

    const named = new Set(overview(COMMANDS).match(ENV_NAME));
    expect([...named].filter((name) => !read.has(name)).sort()).toEqual([]);
    expect([...read].filter((name) => !named.has(name)).sort()).toEqual([]);
    expect(SETTINGS.map((s) => s.name).sort()).toEqual([...named].sort());
  });
});

/**
 * What the CLI loads to start: its own code, nats.js and pg, and none of the services' stacks
 * (Nest and rxjs, the DTOs' validators and OpenAPI metadata, the OpenTelemetry SDK), which made
 * most of its start-up CPU, paid by every command an operator or an e2e file runs
 * (docs/testing.md, "Where the time goes"). Recorded by running the built CLI's `--help` with
 * Node's resolver hooked: every require, of CommonJS or of an ES module, passes through it.
 */
describe('admin CLI help: what it loads', () => {
  const ROOT = join(__dirname, '..', '..', '..');
  const MAIN = join(ROOT, 'dist/apps/admin/src/main.js');
  const HEAVY = ['@nestjs/', 'class-validator', 'class-transformer', '@opentelemetry/sdk-', 'libphonenumber-js', 'rxjs'];
  let dir: string;

  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm run -s build first`);
    dir = mkdtempSync(join(tmpdir(), 'admin-load-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads no Nest, rxjs, class-validator, class-transformer, libphonenumber or OpenTelemetry SDK module', () => {
    const preload = join(dir, 'record-loads.js');
    const out = join(dir, 'loaded.json');
    writeFileSync(
      preload,
      `const Module = require('node:module');
const { writeFileSync } = require('node:fs');
const resolve = Module._resolveFilename;
const loaded = new Set();
Module._resolveFilename = function (...args) {
  const file = resolve.apply(this, args);
  loaded.add(file);
  return file;
};
process.on('exit', () => writeFileSync(${JSON.stringify(out)}, JSON.stringify([...loaded])));
`,
    );
    const result = spawnSync(process.execPath, ['-r', preload, MAIN, '--help'], { cwd: dir, env: {}, encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(0);
    const loaded = JSON.parse(readFileSync(out, 'utf8')) as string[];
    // the hook saw the CLI's own requires
    expect(loaded).toContain(join(ROOT, 'dist/apps/admin/src/commands/index.js'));
    const packages = new Set(loaded.map((file) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1]).filter((name) => name !== undefined));
    expect([...packages].filter((name) => HEAVY.some((heavy) => name.startsWith(heavy))).sort()).toEqual([]);
  });
});
