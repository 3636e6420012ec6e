import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ServiceName } from '@app/contracts/subjects';
import { DEFAULT_HTTP_PORTS, eventsStreamSettings, natsUrl, withoutCredentials } from '@app/platform/config';
import { ConfigError } from '@app/platform/config-error';
import { describeNatsProblem, describePostgresProblem, probeNats, probePostgres } from '@app/platform/connection-check';
import { provisionEventsStreamAt } from '@app/platform/jetstream';
import { ensureNatsIdentities, LOCAL_NATS_IDENTITY_DIR, LOCAL_NATS_URL_FILE, natsConnectOptions, readNatsSettings } from '@app/platform/nats-auth';
import { searchIndexOf } from '../../apps/search/src/migrations/index-layout';
import { DEMO_CORPUS_SIZE, MailOutbox, startDemoSandbox, startMailOutbox } from './demo-sandbox';
import {
  APPS, findNatsServer, httpReady, MESH_NATS_IDENTITY_DIR, portVariable, provisionBus, readyWithinMs, ROOT, RunningApp, spawnApp, startNatsServer, stopApp, tcpAnswers,
  waitFor,
} from './processes';

/**
 * `npm start`: the whole mesh on this machine. Uses PostgreSQL and NATS at DATABASE_URL and
 * NATS_URL; where one does not answer on this machine it starts a local one, or says what to
 * install. Each app creates and migrates its own database at start-up.
 */

const say = (line: string) => process.stdout.write(`[mesh] ${line}\n`);

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

function isLocal(host: string): boolean {
  return ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host);
}

/**
 * PostgreSQL at DATABASE_URL, started when it is this machine's cluster and does not answer. A
 * server that answers and refuses (a password it wants, a role it does not know) is said so at
 * once: starting or waiting would not help.
 */
async function ensurePostgres(): Promise<void> {
  const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  let problem = await probePostgres(url);
  const clusters = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql') : [];
  if (problem?.kind === 'no-answer' && isLocal(new URL(url).hostname) && clusters.length > 0) {
    say(`PostgreSQL does not answer at ${withoutCredentials(url)} (${problem.reason}); starting the local cluster ${clusters[0]}/main`);
    spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', clusters[0], 'main', 'start'], { stdio: 'inherit' });
    const deadline = Date.now() + 20_000;
    do {
      await new Promise((r) => setTimeout(r, 250));
      problem = await probePostgres(url);
    } while (problem?.kind === 'no-answer' && Date.now() < deadline);
  }
  if (!problem) return;
  const install = problem.kind === 'no-answer'
    ? '. Start it, set DATABASE_URL, or install PostgreSQL 15 (Debian/Ubuntu: apt-get install postgresql)'
    : '';
  throw new Error(`${describePostgresProblem(problem, url, 'DATABASE_URL')}${install}`);
}

/**
 * The bus. NATS_URL unset: npm start runs a nats-server of its own with the mesh's generated
 * configuration (JetStream, one NKEY identity per service and the operator, subject permissions;
 * anonymous connections refused), exactly as the tests run it, in .data/nats, on 127.0.0.1:4222
 * when free, else the next free port; .data/nats/url tells the admin CLI where. NATS_URL set: that
 * server, which must know the mesh's identities (`npm run -s nats:config` prints its
 * configuration) and run JetStream; one that still lets anonymous clients in is named as an open
 * bus. Without JetStream it is refused rather than replaced (docs/decisions.md). Either way the
 * EVENTS stream is then provisioned as the operator, before any service starts: no service may
 * create or change it.
 */
async function ensureNats(): Promise<(() => void) | undefined> {
  if (!process.env.NATS_URL) return runOwnNats();
  const url = natsUrl();
  const identities = ensureNatsIdentities(process.env[MESH_NATS_IDENTITY_DIR] || join(ROOT, LOCAL_NATS_IDENTITY_DIR));
  process.env[MESH_NATS_IDENTITY_DIR] = identities.dir;
  const operator = readNatsSettings('operator', url, { ...process.env, NATS_NKEY_SEED_FILE: identities.seedFile('operator') });
  const problem = await probeNats(url, 3000, natsConnectOptions(operator, 'mesh-check'));
  if (problem) throw new Error(describeNatsProblem(problem, url));
  if (!(await probeNats(url, 3000))) {
    say(`warning: NATS at ${withoutCredentials(url)} (NATS_URL) lets anonymous clients in: any process that reaches it can ask any service for any workspace (docs/operations.md)`);
  }
  say(`EVENTS stream ${await provisionEventsStreamAt(natsConnectOptions(operator, 'mesh-provision'), eventsStreamSettings(process.env))} (provisioned as the operator)`);
  return undefined;
}

async function runOwnNats(): Promise<() => void> {
  const binary = findNatsServer();
  if (!binary) throw new Error('nats-server is not installed: install nats-server 2.9+ (Debian/Ubuntu: apt-get install nats-server), set NATS_SERVER_BIN, or set NATS_URL');
  let port = 4222;
  while (await tcpAnswers('127.0.0.1', port)) port++;
  const dir = join(ROOT, '.data', 'nats');
  mkdirSync(dir, { recursive: true });
  const { child, identities } = await startNatsServer(port, dir, { binary });
  process.env.NATS_URL = `nats://127.0.0.1:${port}`;
  try {
    await provisionBus(process.env.NATS_URL, identities, { settings: eventsStreamSettings(process.env) });
  } catch (err) {
    child.kill('SIGTERM');
    throw new Error(`the EVENTS stream could not be provisioned on ${process.env.NATS_URL}: ${(err as Error).message}`);
  }
  process.env[MESH_NATS_IDENTITY_DIR] = identities.dir;
  writeFileSync(join(ROOT, LOCAL_NATS_URL_FILE), `${process.env.NATS_URL}\n`);
  say(`NATS: ${binary} on 127.0.0.1:${port}, JetStream and the mesh's NKEY identities in .data/nats (anonymous connections refused)`);
  return () => child.kill('SIGTERM');
}

/** Where everything is, once it is up; no URL carries its user or password. */
function readyLines(env: NodeJS.ProcessEnv, apiPort: number, outbox: MailOutbox | null): string[] {
  const api = `http://127.0.0.1:${apiPort}/api/v1`;
  const prefix = env.DB_PREFIX ?? 'lim_';
  return [
    `API         ${api}`,
    `API docs    ${api}/docs (OpenAPI: ${api}/openapi.json)`,
    `NATS        ${withoutCredentials(natsUrl(env))} (JetStream)`,
    `PostgreSQL  ${withoutCredentials(env.DATABASE_URL || DEFAULT_DATABASE_URL)} (databases ${prefix}<service>)`,
    ...(outbox ? [`Mail        ${outbox.env.OPTOUT_SMTP_URL}, kept in ${outbox.dir.startsWith(`${ROOT}/`) ? relative(ROOT, outbox.dir) : outbox.dir} (read it: npm run -s admin -- mail:outbox)`] : []),
  ];
}

function portOf(name: ServiceName): number {
  const raw = process.env[portVariable(name)];
  return raw ? Number(raw) : DEFAULT_HTTP_PORTS[name];
}

async function main(): Promise<void> {
  // a SEARCH_INDEX search would refuse (the removed `rum` and `bands` among them) is said once, before anything
  // starts, rather than by search restarting every 2 s
  searchIndexOf(process.env.SEARCH_INDEX);
  await ensurePostgres();
  const stopNats = await ensureNats();
  Object.assign(process.env, (await startDemoSandbox(process.env, say))?.env);
  const outbox = await startMailOutbox(process.env, say);
  Object.assign(process.env, outbox?.env);
  const running = new Map<ServiceName, RunningApp>();
  let stopping = false;

  const launch = (name: ServiceName): RunningApp => {
    const app = spawnApp(name, process.env, portOf(name), (line) => process.stdout.write(`[${name}] ${line}\n`));
    running.set(name, app);
    void app.exited.then((code) => {
      if (stopping) return;
      say(`${name} exited with ${code}; restarting in 2 s`);
      setTimeout(() => !stopping && launch(name), 2000);
    });
    return app;
  };

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping the mesh`);
    await Promise.all([...running.values()].map((app) => stopApp(app)));
    stopNats?.();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  for (const name of APPS) launch(name);
  // 60 s a service; search the longer start its in-memory index needs (readyWithinMs)
  await Promise.all(APPS.map((name) => waitFor(`${name}`, () => httpReady(portOf(name)), readyWithinMs(name, 60_000), 200)));
  say(`all ${APPS.length} services ready`);
  for (const line of readyLines(process.env, portOf('gateway'), outbox)) say(`  ${line}`);
  say('create a workspace and a key: npm run -s admin -- workspace:create --name Acme, then key:create --workspace <ws_id> --mode test');
  seedDemoCorpus();
}

/** A first search returns results: a demo corpus (6,000 entities over the four lenses) when the index is empty. */
function seedDemoCorpus(): void {
  const child = spawn(process.execPath, [join(ROOT, 'dist/apps/admin/src/main.js'), 'search:seed', '--count', String(DEMO_CORPUS_SIZE), '--if-empty', 'true'], { env: process.env });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  child.on('exit', (code) => say(code === 0 ? `search index: ${out.trim()}` : `demo corpus not seeded (admin exited ${code}): ${err.trim().split('\n')[0]}`));
}

main().catch((err: Error) => {
  process.stderr.write(`[mesh] ${err instanceof ConfigError ? 'configuration: ' : ''}${err.message}\n`);
  process.exit(1);
});
