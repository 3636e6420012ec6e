import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ServiceName } from '@app/contracts';
import {
  ConfigError, DEFAULT_HTTP_PORTS, describeNatsProblem, describePostgresProblem, natsUrl, probeNats, probePostgres, withoutCredentials,
} from '@app/platform';
import { DEMO_CORPUS_SIZE, startDemoSandbox } from './demo-sandbox';
import { APPS, findNatsServer, httpReady, portVariable, ROOT, RunningApp, spawnApp, stopApp, tcpAnswers, waitFor } from './processes';

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
 * NATS at NATS_URL, started (with JetStream, in .data/nats) when it is local and does not answer.
 * One that answers without JetStream is refused rather than replaced by one of our own on another
 * port: the admin CLI and everything else configured with NATS_URL would still reach the first
 * (docs/decisions.md).
 */
async function ensureNats(): Promise<(() => void) | undefined> {
  const url = new URL(natsUrl());
  const port = Number(url.port || 4222);
  let stop: (() => void) | undefined;
  if (!(await tcpAnswers(url.hostname, port))) {
    const binary = findNatsServer();
    if (!isLocal(url.hostname) || !binary) {
      throw new Error(
        `cannot reach NATS at ${withoutCredentials(url.toString())} (NATS_URL). Start it, set NATS_URL, or install nats-server 2.9+ with JetStream ` +
          `(Debian/Ubuntu: apt-get install nats-server).`,
      );
    }
    const storeDir = join(ROOT, '.data', 'nats');
    mkdirSync(storeDir, { recursive: true });
    say(`NATS not answering; starting ${binary} on ${port} with JetStream in .data/nats`);
    const child = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: 'ignore' });
    await waitFor('NATS', () => tcpAnswers('127.0.0.1', port), 10_000, 100);
    stop = () => child.kill('SIGTERM');
  }
  const problem = await probeNats(url.toString());
  if (problem) {
    stop?.();
    throw new Error(describeNatsProblem(problem, url.toString()));
  }
  return stop;
}

/** Where everything is, once it is up; no URL carries its user or password. */
function readyLines(env: NodeJS.ProcessEnv, apiPort: number): string[] {
  const api = `http://127.0.0.1:${apiPort}/api/v1`;
  const prefix = env.DB_PREFIX ?? 'lim_';
  return [
    `API         ${api}`,
    `API docs    ${api}/docs (OpenAPI: ${api}/openapi.json)`,
    `NATS        ${withoutCredentials(natsUrl(env))} (JetStream)`,
    `PostgreSQL  ${withoutCredentials(env.DATABASE_URL || DEFAULT_DATABASE_URL)} (databases ${prefix}<service>)`,
  ];
}

function portOf(name: ServiceName): number {
  const raw = process.env[portVariable(name)];
  return raw ? Number(raw) : DEFAULT_HTTP_PORTS[name];
}

async function main(): Promise<void> {
  await ensurePostgres();
  const stopNats = await ensureNats();
  Object.assign(process.env, (await startDemoSandbox(process.env, say))?.env);
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
  await Promise.all(APPS.map((name) => waitFor(`${name}`, () => httpReady(portOf(name)), 60_000, 200)));
  say(`all ${APPS.length} services ready`);
  for (const line of readyLines(process.env, portOf('gateway'))) say(`  ${line}`);
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
