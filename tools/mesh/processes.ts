import { ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { basename, join } from 'node:path';
import { ConnectionOptions, nkeys } from '@nats-io/transport-node';
import { natsInboxPrefix } from '@app/contracts/nats-flows';
import { SERVICE_NAMES, ServiceName } from '@app/contracts/subjects';
import { DEFAULT_HTTP_PORTS, EventsStreamSettings, eventsStreamSettings } from '@app/platform/config';
import { provisionEventsStreamAt, ProvisionOutcome } from '@app/platform/jetstream';
import {
  ensureNatsIdentities, NatsIdentityFiles, natsServerConfig, NatsServerConfigOptions, natsServers, NatsUser,
} from '@app/platform/nats-auth';
import { nkeyAuthenticator, nkeyPublicKey } from '@app/platform/nkey-authenticator';

/** The repository root, whether this runs from tools/ (tests) or dist/tools/ (built). */
function findRoot(dir: string): string {
  return existsSync(join(dir, 'nest-cli.json')) ? dir : findRoot(join(dir, '..'));
}
export const ROOT = findRoot(__dirname);
export const APPS: readonly ServiceName[] = SERVICE_NAMES;

/** The file a service runs: its bundle (tools/build/bundle.ts), as in the image. */
export function appEntry(name: ServiceName): string {
  return join(ROOT, 'dist', 'apps', name, 'main.js');
}

export function portVariable(name: ServiceName): string {
  return name === 'gateway' ? 'PORT' : `${name.toUpperCase()}_HTTP_PORT`;
}

export function defaultPort(name: ServiceName): number {
  return DEFAULT_HTTP_PORTS[name];
}

/**
 * How long search may take from its start to answer ready, as k8s/services/search's startupProbe
 * allows (2 s x 150): it builds its in-memory index from its database first, which over 10M
 * entities took 53 s on a fast morning (2026-12-03) and 121 s at load 6 (docs/capacity.md).
 */
export const SEARCH_STARTUP_MS = 300_000;

/** How long a started service may take to answer ready: `others` for every service but search, which has SEARCH_STARTUP_MS if that is longer. */
export function readyWithinMs(name: ServiceName, others: number): number {
  return name === 'search' ? Math.max(SEARCH_STARTUP_MS, others) : others;
}

/** A port of 127.0.0.1 nothing listens on now, below the ephemeral range (FREE_PORTS_FROM). */
export async function freePort(): Promise<number> {
  const below = ephemeralPortsStart();
  if (below > FREE_PORTS_FROM + 1000) {
    for (let attempt = 0; attempt < 32; attempt++) {
      const port = FREE_PORTS_FROM + Math.floor(Math.random() * (below - FREE_PORTS_FROM));
      if ((await listenOnce(port)) === port) return port;
    }
  }
  return listenOnce(0);
}

/**
 * freePort hands out ports from here up to the kernel's ephemeral range, not from that range: a
 * port of the ephemeral range, free when probed, may become the source port of any process's
 * outgoing connection before the caller binds it (a cluster run's nats-server once exited on such
 * a port under a loaded suite). Ports below the range are taken only by a bind. Above every fixed
 * port of the mesh (3000-3105, 4222, 4231-4233, 5432, 5441-5444, 6231-6233).
 */
const FREE_PORTS_FROM = 10_000;

/** The first port of Linux's ephemeral range (`ip_local_port_range`), 32768 where it cannot be read; read once. */
let ephemeralFrom: number | undefined;
function ephemeralPortsStart(): number {
  if (ephemeralFrom !== undefined) return ephemeralFrom;
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    ephemeralFrom = Number.isInteger(first) && first > 0 ? first : 32768;
  } catch {
    ephemeralFrom = 32768;
  }
  return ephemeralFrom;
}

/** Listens on `port` of 127.0.0.1 (0: any) and closes: the port it got, or -1 when it was taken. */
function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => (port !== 0 && (err.code === 'EADDRINUSE' || err.code === 'EACCES') ? resolve(-1) : reject(err)));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export function tcpAnswers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}

/**
 * Runs `work` on each item, at most `concurrency` at once (lanes that take the next item as each
 * finishes); once one fails, no lane takes another item, the ones started finish, and the first
 * failure is thrown. For starting services: a start is mostly CPU, so more at once than the
 * cores only makes each slower.
 */
export async function inLanes<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  const queue = [...items];
  const failures: unknown[] = [];
  const lane = async () => {
    for (let item = queue.shift(); item !== undefined && failures.length === 0; item = queue.shift()) {
      await work(item).catch((err) => failures.push(err));
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, concurrency), queue.length) }, lane));
  if (failures.length) throw failures[0];
}

/**
 * A child process run to its end: its exit status (1 when it could not run or was killed) and
 * output. Never rejects: the caller reads the status.
 */
export function runToEnd(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = (err as { code?: unknown } | null)?.code;
      resolve({ status: err ? (typeof code === 'number' ? code : 1) : 0, stdout, stderr: stderr || (err && typeof code !== 'number' ? err.message : '') });
    });
  });
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`${what} not ready within ${timeoutMs} ms`);
}

/** The answer of a service's readiness probe on `port` (rejects when nothing answers within 1 s). */
function readinessAnswer(port: number): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(1000) });
}

export async function httpReady(port: number): Promise<boolean> {
  return (await readinessAnswer(port)).status === 200;
}

/**
 * Whether process `pid` holds the socket that listens on TCP `port` (Linux's /proc: the inode of
 * the port's LISTEN entry among the process's open files; elsewhere assumed). A port a starter
 * chose free can be bound by another process before the app binds it: that process then answers
 * the app's readiness, and the app exits on EADDRINUSE after it was taken for ready (a loaded run,
 * 2026-11-30: crm's metrics port answered by another mesh's service).
 */
export function listensOn(pid: number | undefined, port: number): boolean {
  if (process.platform !== 'linux') return true;
  if (pid === undefined) return false;
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length > 9 && fields[1].endsWith(hexPort) && fields[3] === '0A') inodes.add(fields[9]);
    }
  }
  if (inodes.size === 0) return false;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      return socket !== null && inodes.has(socket[1]);
    } catch {
      return false;
    }
  });
}

/**
 * An app's readiness: /health/ready answers 200 and the app's own process holds the port (not
 * another process that took it first). `last` says what the last poll saw (the answer's status
 * and body, or why there was none, and whether a 200 came from another process), for the error
 * of a start that never became ready: a timeout alone says nothing of which check held it back.
 */
export function observedReadiness(app: Pick<RunningApp, 'port' | 'child'>): { ready: () => Promise<boolean>; last: () => string } {
  let last = 'never polled';
  const ready = async (): Promise<boolean> => {
    try {
      const response = await readinessAnswer(app.port);
      last = `/health/ready answered ${response.status} ${(await response.text()).slice(0, 600)}`;
      if (response.status !== 200) return false;
      // /proc/net/tcp is read only for an answer that would make the app ready
      const holds = listensOn(app.child.pid, app.port);
      if (!holds) last += `, but from a process other than the app's: port ${app.port} is not the app's`;
      return holds;
    } catch (err) {
      const cause = (err as Error & { cause?: { message?: string } }).cause?.message;
      last = `/health/ready on port ${app.port} did not answer: ${(err as Error).message}${cause ? ` (${cause})` : ''}`;
      return false;
    }
  };
  return { ready, last: () => last };
}

export interface RunningApp {
  name: ServiceName;
  port: number;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/**
 * V8 flags every service runs with, here and in the image (Dockerfile's NODE_OPTIONS; a deploy test
 * keeps the two equal). A young generation of up to 32 MB a semi-space instead of V8's default: a
 * service moves a request's JSON (a search page is ~30 KB) through buffers that die young, and with
 * the default they are scavenged and promoted so often that the collector takes a large share of
 * the gateway's CPU under load. At most 64 MB more per process, within every deployment's memory
 * limit.
 */
export const APP_NODE_FLAGS = ['--max-semi-space-size=32'];

/**
 * V8 flags every service runs with that NODE_OPTIONS does not accept, so they are node's
 * arguments, here and in the image (Dockerfile's CMD; the deploy test keeps the two equal).
 * `--heap-growing-percent=200`: after each full collection the old generation may grow to three
 * times what survived before the next. V8's own factor, for heaps as small as ours, leaves the
 * limit just above the live heap, so under load (above all after an idle spell) a service runs a
 * full mark-compact every fraction of a second; turning incremental marking off instead makes
 * long atomic pauses when load comes at once. Up to three times the live heap: within every
 * deployment's memory limit.
 */
export const APP_V8_FLAGS = ['--heap-growing-percent=200'];

/**
 * NODE_COMPILE_CACHE of the apps spawnApp starts, unless their environment sets one: node (22.1+)
 * keeps the V8 code of each module it compiles there, and an app started again (a restart after a
 * crash, a chaos kill, the next `npm start`) reads it instead of compiling its bundle again: a
 * fifth of a start's CPU (docs/deployment.md, `NODE_COMPILE_CACHE`). The image bakes its own (Dockerfile).
 * Under the repository's `.data/`, the user's own, not a shared temporary directory: code read from
 * there runs as the app.
 */
export const MESH_COMPILE_CACHE_DIR = join(ROOT, '.data', 'compile-cache');

/**
 * In the environment handed to spawnApp: the directory of the mesh's NATS identities (one seed
 * file each, see ensureNatsIdentities). spawnApp gives each app its own seed file and never the
 * directory, so no app can act as another.
 */
export const MESH_NATS_IDENTITY_DIR = 'MESH_NATS_IDENTITY_DIR';

/**
 * node's arguments for an app: the image's flags (Dockerfile's NODE_OPTIONS and CMD; compose.spec keeps them
 * equal), then MESH_NODE_ARGS, extra node flags for every app (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to
 * profile a benchmark, `--enable-source-maps` for stack traces in the TypeScript's lines). No source maps by
 * default, as in the image: they cost every start a sixth of its module loading (docs/testing.md, "A service's
 * start").
 */
export function appNodeArgs(name: ServiceName, meshNodeArgs = process.env.MESH_NODE_ARGS): string[] {
  const extra = (meshNodeArgs ?? '').split(/\s+/).filter(Boolean);
  return [...APP_NODE_FLAGS, ...APP_V8_FLAGS, ...extra, appEntry(name)];
}

export function spawnApp(
  name: ServiceName,
  env: NodeJS.ProcessEnv,
  port: number,
  /** A file descriptor: the app writes its output there itself (the parent need not read it). */
  output: 'inherit' | 'ignore' | number | ((line: string) => void) = 'inherit',
): RunningApp {
  const { [MESH_NATS_IDENTITY_DIR]: identityDir, ...appEnv } = env;
  const child = spawn(process.execPath, appNodeArgs(name), {
    cwd: ROOT,
    env: {
      // its PostgreSQL sessions named after the service (pg_stat_activity's application_name; a
      // session that names itself, a claim owner's, keeps its own), so a sample of the server's
      // connections says whose they are also where the database's name does not (the server's own)
      PGAPPNAME: `lim-${name}`,
      // node's compile cache, as the image has one (Dockerfile): a restarted app compiles from it
      NODE_COMPILE_CACHE: MESH_COMPILE_CACHE_DIR,
      ...appEnv,
      ...(identityDir ? { NATS_NKEY_SEED_FILE: join(identityDir, `${name}.nk`) } : {}),
      [portVariable(name)]: String(port),
    },
    stdio: ['ignore', typeof output === 'function' ? 'pipe' : output, typeof output === 'function' ? 'pipe' : output],
  });
  if (typeof output === 'function') {
    for (const stream of [child.stdout, child.stderr]) {
      let buffer = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        buffer += chunk;
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          output(buffer.slice(0, newline));
          buffer = buffer.slice(newline + 1);
        }
      });
    }
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { name, port, child, exited };
}

/** SIGTERM, then SIGKILL if the process has not gone within `graceMs`. */
export async function stopApp(app: RunningApp, graceMs = 8000): Promise<number | null> {
  if (app.child.exitCode !== null || app.child.signalCode !== null) return app.child.exitCode;
  app.child.kill('SIGTERM');
  const timer = setTimeout(() => app.child.kill('SIGKILL'), graceMs);
  const code = await app.exited;
  clearTimeout(timer);
  return code;
}

export function findNatsServer(): string | null {
  const candidates = [process.env.NATS_SERVER_BIN, '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];
  for (const candidate of candidates) if (candidate && existsSync(candidate)) return candidate;
  const which = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : null;
}

/**
 * The tests' and tools' own NATS identity: it may publish and subscribe anything (they forge what
 * a service would send). Only a server started for a test or a tool is given it, never `npm start`'s.
 */
export interface ProbeIdentity {
  user: NatsUser;
  /** Connection options of the probe on the server at `url`. */
  options(url: string): ConnectionOptions;
}

/** `seed`: the probe of a server started earlier (a test mesh shared by several test files). */
export function probeIdentity(seed: Uint8Array = nkeys.createUser().getSeed()): ProbeIdentity {
  return {
    user: { name: 'probe', publicKey: nkeyPublicKey(seed), permissions: { publish: ['>'], subscribe: ['>'] } },
    options: (url) => ({ servers: url, authenticator: nkeyAuthenticator(seed) }),
  };
}

export interface SecuredNats {
  child: ChildProcess;
  identities: NatsIdentityFiles;
  /** The configuration file nats-server runs with (`<dir>/nats.conf`). */
  configFile: string;
}

/** How long startNatsServer waits for the nats-server to answer on its port. */
export const NATS_START_TIMEOUT_MS = 10_000;

/**
 * A nats-server of our own in `dir`: JetStream stored under `dir`, every connection
 * authenticated by the mesh's NKEY identities (made in `<dir>/identities` when missing) with the
 * permissions of libs/contracts/src/nats-flows.ts; anonymous connections are refused.
 * `extraUsers`: more users (the tests' probe).
 */
export async function startNatsServer(
  port: number,
  dir: string,
  options: {
    extraUsers?: NatsUser[];
    host?: string;
    binary?: string | null;
    tls?: NatsServerConfigOptions['tls'];
    cluster?: NatsServerConfigOptions['cluster'];
    /** Where the identities are (default `<dir>/identities`): a cluster's nodes share one set. */
    identityDir?: string;
  } = {},
): Promise<SecuredNats> {
  const binary = options.binary === undefined ? findNatsServer() : options.binary;
  if (!binary) throw new Error('nats-server not found: install it (Debian: apt-get install nats-server) or set NATS_SERVER_BIN');
  const identities = ensureNatsIdentities(options.identityDir ?? join(dir, 'identities'));
  const configFile = join(dir, 'nats.conf');
  const host = options.host ?? '127.0.0.1';
  writeFileSync(
    configFile,
    natsServerConfig({ host, port, storeDir: dir, users: [...identities.users, ...(options.extraUsers ?? [])], tls: options.tls, cluster: options.cluster, portsFileDir: dir }),
    { mode: 0o600 },
  );
  const child = spawn(binary, ['-c', configFile], { stdio: 'ignore' });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`nats-server exited with ${code} (config ${configFile})`))));
  // ready when this process wrote its ports file (it listens) and the port answers: a port that
  // answers alone may be another process's, taken between freePort's probe and this server's bind
  // (a loaded run once saw the harness connect to a port nothing served any more for 60 s)
  const portsFile = join(dir, `${basename(binary)}_${child.pid}.ports`);
  await Promise.race([waitFor(`nats-server on ${port}`, async () => existsSync(portsFile) && (await tcpAnswers(host, port)), NATS_START_TIMEOUT_MS, 50), exited]);
  exited.catch(() => undefined);
  return { child, identities, configFile };
}

/**
 * Provisions the bus's EVENTS stream as the operator of `identities` (the one identity that may
 * create or change a stream), on the server(s) at `url`: whoever starts a mesh does this before
 * its services start, as `migrate.js bus` does in a deployment. Waits for JetStream (a cluster
 * electing its leader) up to `waitMs`.
 */
export async function provisionBus(
  url: string,
  identities: Pick<NatsIdentityFiles, 'seedFile'>,
  options: { tls?: ConnectionOptions['tls']; settings?: EventsStreamSettings; waitMs?: number } = {},
): Promise<ProvisionOutcome> {
  const seed = readFileSync(identities.seedFile('operator'), 'utf8').trim();
  return provisionEventsStreamAt(
    {
      servers: natsServers(url),
      authenticator: nkeyAuthenticator(seed),
      inboxPrefix: natsInboxPrefix('operator'),
      ...(options.tls ? { tls: options.tls } : {}),
    },
    options.settings ?? eventsStreamSettings({}),
    { waitMs: options.waitMs ?? 60_000 },
  );
}
