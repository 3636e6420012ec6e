import { ChildProcess, execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectionOptions, NatsConnection, nkeys } from '@nats-io/transport-node';
import { Client } from 'pg';
import type { RequestContext } from '@app/contracts/context';
import { LENSES, Lens } from '@app/contracts/enums';
import { natsInboxPrefix, NatsIdentity } from '@app/contracts/nats-flows';
import type { CreatedKey, CreatedWorkspace, CreateKeyRequest, CreateWorkspaceRequest } from '@app/contracts/resources/workspace';
import { EVENTS_STREAM, SERVICE_NAMES, ServiceName, SUBJECTS } from '@app/contracts/subjects';
import { randomToken } from '@app/platform/ids';
import { connectMesh } from '@app/platform/nats';
import { nkeyAuthenticator } from '@app/platform/nkey-authenticator';
import { askService } from '@app/platform/reply-mux';
import { operatorContext } from '../apps/admin/src/admin-context';
import { eventsStreamSettings } from '@app/platform/config';
import type { ProvisionOutcome } from '@app/platform/jetstream';
import {
  freePort, observedReadiness, httpReady, inLanes, MESH_NATS_IDENTITY_DIR, probeIdentity, provisionBus, ROOT, RunningApp, spawnApp, startNatsServer, stopApp, waitFor,
} from '../tools/mesh/processes';
import { TIMING_SCALE } from './support/timing';

export const PG_SERVER_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

function settingMs(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a whole number of milliseconds above 0, not ${process.env[name]}`);
  return value;
}

/** A whole number from the environment, at least `min` (1 unless said: a count of things; 0 where none is a setting). */
function settingCount(name: string, fallback: number, min = 1): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number ${min === 1 ? 'above 0' : `of at least ${min}`}, not ${process.env[name]}`);
  return value;
}

/**
 * The harness's readiness and timing bounds (docs/testing.md, "Harness settings"): a spec waits
 * on these, not on constants of its own, and a slow machine raises them by environment.
 */
export const HARNESS = {
  /**
   * How long an app may take to answer ready after its start (TEST_READY_TIMEOUT_MS). A wait, not
   * an assertion of speed: 60 s, because on a slow day of CI's machine (2026-11-29 16:20, the same
   * code's unit and integration tier 168 s against 77 s the day's quiet hour) crm took over 30 s.
   */
  readyTimeoutMs: settingMs('TEST_READY_TIMEOUT_MS', 60_000),
  /**
   * Jest's own bound of a test or hook that sets none (TEST_TIMEOUT_MS; jest.config.js reads the same
   * variable): a wait for the test to end, not an assertion of its speed.
   */
  testTimeoutMs: settingMs('TEST_TIMEOUT_MS', 120_000),
  /** How often readiness is polled: a mesh's start waits for its slowest app, and a poll is one local request. */
  readyPollMs: 25,
  /** How long a closing mesh gives an app after SIGTERM before SIGKILL (TEST_STOP_GRACE_MS). */
  stopGraceMs: settingMs('TEST_STOP_GRACE_MS', 3000),
  /** The deadline of a request the harness asks as the operator (workspace and key fixtures). */
  operatorTimeoutMs: settingMs('TEST_OPERATOR_TIMEOUT_MS', 10_000),
  /** The deadline of `mesh.rpc`. */
  rpcTimeoutMs: settingMs('TEST_RPC_TIMEOUT_MS', 5000),
  /**
   * How many apps of a mesh start at once (TEST_START_CONCURRENCY, default: the machine's cores).
   * An app's start is mostly CPU (module loading, Nest's start); more at once than the cores only
   * makes each take longer, and on a busy machine pushes the last ones past the readiness wait.
   */
  startConcurrency: settingCount('TEST_START_CONCURRENCY', availableParallelism()),
  /**
   * The services' PostgreSQL pools in every mesh of the suite (TEST_PG_POOL_MAX, production 10;
   * TEST_PG_POOL_IDLE_MS, production 30 s; TEST_PG_POOL_KEEP, 0, production all of search's), the chaos run's included (its `pgPool`): a mesh in use
   * holds at most about 5 connections a service with its LISTEN, an idle one hands its pooled
   * connections back within a second, so the meshes of two suites side by side (three workers
   * each) fit in PostgreSQL's default 100 connections (docs/testing.md, "Harness settings").
   */
  pgPool: { max: settingCount('TEST_PG_POOL_MAX', 4), idleMs: settingMs('TEST_PG_POOL_IDLE_MS', 1000), keep: settingCount('TEST_PG_POOL_KEEP', 0, 0) },
  /**
   * The longest a mesh of `apps` apps can take to start, or fail to, by the bounds above: the
   * nats-server's 10 s, 50 s for the bus and the databases, and a readiness wait for each round of
   * apps started at once. A `beforeAll` that starts a mesh gives itself this through
   * meshHookTimeoutMs (jest's default, testTimeoutMs, could end it while the harness still waits,
   * leaving the start running unowned).
   */
  startTimeoutMs(apps: number): number {
    return 60_000 + Math.ceil(apps / this.startConcurrency) * this.readyTimeoutMs;
  },
};

/**
 * The bound of a `beforeAll` that starts a mesh of `apps` apps of its own and then sets up what its
 * tests need: the longest the start can take by the harness's bounds (startTimeoutMs), plus jest's
 * own bound (testTimeoutMs) for the rest of the hook (seeding, fixtures, peers). Jest's bound alone
 * (60 s then) ended such hooks of four apps on a loaded machine while the harness still waited for
 * a service's readiness (reveals, with a second `npm test` beside it, 2026-11-29).
 */
export function meshHookTimeoutMs(apps: number): number {
  return HARNESS.startTimeoutMs(apps) + HARNESS.testTimeoutMs;
}

/** The bound of a `beforeAll` that asks for `TestMesh.sharedAll()` (it may be the file that starts it). */
export const SHARED_ALL_START_MS = HARNESS.startTimeoutMs(SERVICE_NAMES.length);

/**
 * The bound of a test or hook that takes longer than jest's own bound by its nature (a chaos run,
 * packing and installing packages, a container build): `ms` is the test's own expectation of its
 * length, scaled by the machine (TEST_TIMING_SCALE, as `allowance`), and never below jest's bound
 * (HARNESS.testTimeoutMs), so raising TEST_TIMEOUT_MS raises it too. A bound on waiting, not an
 * assertion of speed; a test that fits in jest's bound sets none (docs/testing.md, "Harness settings").
 */
export function longTestMs(ms: number): number {
  return Math.max(Math.round(ms * TIMING_SCALE), HARNESS.testTimeoutMs);
}

/**
 * The settings of the mesh of all six services that files share (`TestMesh.sharedAll`): the
 * union of what those files need, none of which changes what another of them asserts (docs/testing.md,
 * "Shared meshes").
 */
export const SHARED_ALL_SETTINGS: Readonly<Record<string, string>> = Object.freeze({
  // every key look-up reaches the database: a member's role changed there is the gateway's at once (idempotency)
  KEY_CACHE_TTL_MS: '0',
  // GET /events/stream polls the stored events this often (packages-install's lim listen)
  EVENTS_STREAM_POLL_MS: '200',
  // webhook endpoints on loopback, and a sealing key of the test's own (openapi-responses)
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
  WEBHOOK_SECRET_KEY: 'a'.repeat(64),
  // the agency plan's monthly credits, which credits:renew grants (credits)
  BILLING_PLAN_CREDITS: 'agency=100',
});

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

/** Certificates of a TLS bus: the server's, the CA both sides trust, the apps' client certificate. */
export interface NatsTlsFiles {
  caFile: string;
  server: { cert: string; key: string };
  client: { cert: string; key: string };
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/** The pool of shared meshes the e2e project's test environment hands each file (test/mesh-pool.js). */
const MESH_POOL = Symbol.for('lead-intelligence.test-mesh-pool');

interface PooledMesh {
  key: string;
  /** SharedMeshData as JSON. */
  data: string;
  /** The nats-server first, then the apps in SharedMeshData's order. */
  children: ChildProcess[];
  dirs: string[];
}

export interface MeshPool {
  take(key: string): PooledMesh | undefined;
  add(key: string, data: string, children: ChildProcess[], dirs: string[]): PooledMesh;
  release(key: string): void;
  remove(key: string): void;
  evict(keep?: number): PooledMesh[];
  drain(): PooledMesh[];
}

/** What a file needs to drive a mesh another file started. */
interface SharedMeshData {
  env: NodeJS.ProcessEnv;
  natsPort: number;
  dbPrefix: string;
  natsDir: string;
  probeSeed: string;
  apps: { name: ServiceName; port: number }[];
}

/** Databases of the shared meshes of one `jest` run start with this (the e2e globalTeardown drops them). */
export function sharedDbPrefix(run: string): string {
  return `ts_${run}_`;
}

/**
 * A real mesh for one test file: its own nats-server (JetStream in a temp dir, the mesh's NKEY
 * identities and subject permissions, as `npm start` runs it), databases under a unique prefix
 * on the local PostgreSQL, and the chosen apps as child processes built from dist/. Nothing is
 * mocked. The admin CLI runs as the operator; the test's own NATS clients connect as a probe
 * identity that may publish and subscribe anything (tests forge what a service would send).
 *
 * `TestMesh.start` starts a mesh for the file alone; `TestMesh.shared` hands the file a mesh it
 * shares with the other files of its jest worker that ask for the same apps and environment
 * (docs/testing.md says which files may).
 */
export class TestMesh {
  readonly apps = new Map<ServiceName, RunningApp>();
  readonly logs = new Map<ServiceName, string[]>();
  /**
   * The EVENTS stream's last sequence when this file got the mesh (0 for a mesh of its own): the
   * events of the files that used a shared mesh before are not this file's
   * (EventStreamReader's `after`).
   */
  eventsAfter = 0;
  private nats?: ChildProcess;
  private natsDir = '';
  /** The probe identity's seed (test clients only; no app has it). */
  private readonly probeSeed: string;
  private readonly probe: ReturnType<typeof probeIdentity>;
  private rpcClient?: Promise<NatsConnection>;
  private operatorClient?: Promise<NatsConnection>;
  private clients: NatsConnection[] = [];
  private natsTls?: NatsTlsFiles;
  /** The apps whose database was made from its template (on their first start only). */
  private readonly cloned = new Set<ServiceName>();
  /** Where the apps of a shared mesh write their output (a file each), instead of this process reading it. */
  private logDir?: string;
  /** Set on a shared mesh: its pool and key, and the exit listeners this file put on its apps. */
  private shared?: { pool: MeshPool; key: string; listeners: [ChildProcess, () => void][] };

  private constructor(
    readonly env: NodeJS.ProcessEnv,
    readonly natsPort: number,
    readonly dbPrefix: string,
    probeSeed?: string,
  ) {
    this.probeSeed = probeSeed ?? new TextDecoder().decode(probeIdentitySeed());
    this.probe = probeIdentity(new TextEncoder().encode(this.probeSeed));
  }

  /**
   * `natsTls`: the nats-server speaks only TLS and requires a client certificate from the CA
   * (`verify`); every app, the admin CLI and the test's clients connect with the client one.
   * `provisionBus: false`: the EVENTS stream is left for the test to provision (`mesh.provisionBus()`).
   */
  static async start(apps: ServiceName[], extraEnv: Record<string, string> = {}, options: { natsTls?: NatsTlsFiles; provisionBus?: boolean } = {}): Promise<TestMesh> {
    // the worker's idle shared meshes stop first: while this file runs they would only hold their
    // processes and PostgreSQL connections (about two a service); three workers each holding a
    // mesh in use and idle ones beside it is what reaches PostgreSQL's default 100 connections
    // (docs/testing.md, "Workers and order": the sequencer runs the shared files last, so a full
    // run stops none here)
    const pool = (globalThis as Record<symbol, unknown>)[MESH_POOL] as MeshPool | undefined;
    if (pool) await Promise.all(pool.evict(0).map((idle) => stopPooledMesh(idle)));
    return TestMesh.launch(apps, extraEnv, options);
  }

  /**
   * A mesh of these apps with this environment shared by the files of this jest worker that ask
   * for the same: started by the first, kept running between files (test/mesh-pool.js), handed to
   * the next; `close()` hands it back. For a file whose tests are isolated by the workspaces and
   * keys they create, that stop, kill, stall or reconfigure no app, and that assert nothing about
   * state outside their own workspaces: it finds whatever the files before it left. Outside the
   * e2e project (no pool) or with TEST_OWN_MESH=1, the file gets a mesh of its own.
   */
  static async shared(apps: ServiceName[], extraEnv: Record<string, string> = {}): Promise<TestMesh> {
    const pool = (globalThis as Record<symbol, unknown>)[MESH_POOL] as MeshPool | undefined;
    const run = process.env.TEST_MESH_RUN;
    if (!pool || !run || process.env.TEST_OWN_MESH === '1') return TestMesh.start(apps, extraEnv);
    const key = createHash('sha256')
      .update(JSON.stringify({ root: ROOT, apps: [...new Set(apps)].sort(), env: Object.entries(extraEnv).sort(([a], [b]) => (a < b ? -1 : 1)) }))
      .digest('hex')
      .slice(0, 16);
    const kept = pool.take(key);
    if (kept) {
      const mesh = TestMesh.adopt(kept, pool);
      if (await mesh.healthy()) {
        await mesh.markEvents();
        return mesh;
      }
      pool.remove(key);
      await stopPooledMesh(kept);
    }
    await Promise.all(pool.evict().map((idle) => stopPooledMesh(idle)));
    const mesh = await TestMesh.launch(apps, extraEnv, { sharedRun: run });
    const data: SharedMeshData = {
      env: mesh.env,
      natsPort: mesh.natsPort,
      dbPrefix: mesh.dbPrefix,
      natsDir: mesh.natsDir,
      probeSeed: mesh.probeSeed,
      apps: [...mesh.apps.values()].map((app) => ({ name: app.name, port: app.port })),
    };
    const children = [mesh.nats as ChildProcess, ...[...mesh.apps.values()].map((app) => app.child)];
    pool.add(key, JSON.stringify(data), children, [mesh.natsDir]);
    mesh.shared = { pool, key, listeners: [] };
    return mesh;
  }

  /**
   * The shared mesh of all six services with SHARED_ALL_SETTINGS: for the files whose tests are
   * isolated by their workspaces and need more than gateway and crm, or a setting of that set.
   */
  static sharedAll(): Promise<TestMesh> {
    return TestMesh.shared([...SERVICE_NAMES], { ...SHARED_ALL_SETTINGS });
  }

  /** A mesh another file started, as this file drives it. */
  private static adopt(kept: PooledMesh, pool: MeshPool): TestMesh {
    const data = JSON.parse(kept.data) as SharedMeshData;
    const mesh = new TestMesh(data.env, data.natsPort, data.dbPrefix, data.probeSeed);
    mesh.natsDir = data.natsDir;
    mesh.logDir = join(data.natsDir, 'logs');
    mesh.nats = kept.children[0];
    mesh.shared = { pool, key: kept.key, listeners: [] };
    data.apps.forEach(({ name, port }, i) => {
      const child = kept.children[i + 1];
      mesh.cloned.add(name);
      mesh.logs.set(name, []);
      const exited = new Promise<number | null>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        const listener = () => resolve(child.exitCode);
        child.once('exit', listener);
        mesh.shared?.listeners.push([child, listener]);
      });
      mesh.apps.set(name, { name, port, child, exited });
    });
    return mesh;
  }

  /** Every process of a kept mesh still runs and every app answers ready. */
  private async healthy(): Promise<boolean> {
    const children = [this.nats, ...[...this.apps.values()].map((app) => app.child)];
    if (children.some((child) => !child || child.exitCode !== null || child.signalCode !== null)) return false;
    const ready = await Promise.all([...this.apps.values()].map((app) => httpReady(app.port).catch(() => false)));
    return ready.every(Boolean);
  }

  /** Notes the EVENTS stream's last sequence (eventsAfter). */
  private async markEvents(): Promise<void> {
    const { jetstreamManager } = await import('@nats-io/jetstream');
    this.rpcClient ??= this.natsClient();
    const jsm = await jetstreamManager(await this.rpcClient);
    this.eventsAfter = await jsm.streams.info(EVENTS_STREAM).then((info) => info.state.last_seq, () => 0);
  }

  private static async launch(
    apps: ServiceName[],
    extraEnv: Record<string, string>,
    options: { natsTls?: NatsTlsFiles; provisionBus?: boolean; sharedRun?: string },
  ): Promise<TestMesh> {
    const tls = options.natsTls;
    const natsDir = mkdtempSync(join(tmpdir(), 'mesh-nats-'));
    const probeSeed = new TextDecoder().decode(probeIdentitySeed());
    const serverTls = tls && { certFile: tls.server.cert, keyFile: tls.server.key, caFile: tls.caFile, verify: true };
    // the port freePort found free may be taken before nats-server binds it (by a process of this run
    // or of a run beside it): the server then exits at once (startNatsServer), and another port is tried
    const probeUser = probeIdentity(new TextEncoder().encode(probeSeed)).user;
    let natsPort = 0;
    let nats: ChildProcess | undefined;
    for (let attempt = 1; !nats; attempt++) {
      natsPort = await freePort();
      try {
        nats = (await startNatsServer(natsPort, natsDir, { extraUsers: [probeUser], tls: serverTls })).child;
      } catch (err) {
        if (attempt === 3 || !/^nats-server exited/.test((err as Error).message)) throw err;
      }
    }
    const dbPrefix = `${options.sharedRun ? sharedDbPrefix(options.sharedRun) : 't_'}${randomToken(8).toLowerCase()}_`;
    const identityDir = join(natsDir, 'identities');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      // Node 22.1+ keeps the compiled code of every module it loads here, so the many app and admin
      // processes the suite starts do not compile the same modules again (older Node ignores it)
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE || join(tmpdir(), 'lim-test-compile-cache'),
      DATABASE_URL: PG_SERVER_URL,
      DB_PREFIX: dbPrefix,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      [MESH_NATS_IDENTITY_DIR]: identityDir,
      NATS_NKEY_SEED_FILE: join(identityDir, 'operator.nk'),
      ...(tls ? { NATS_TLS_CA_FILE: tls.caFile, NATS_TLS_CERT_FILE: tls.client.cert, NATS_TLS_KEY_FILE: tls.client.key } : {}),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL || 'warn',
      // an idle mesh (a shared one between its files, a file's own between its tests) hands its
      // pooled connections back within a second: the meshes of both workers fit in PostgreSQL's
      // default max_connections (100), which a shared mesh of all six services kept at 30 s did not
      PG_POOL_IDLE_MS: String(HARNESS.pgPool.idleMs),
      // at most 4 pooled connections a service (production: 10), so that a mesh in use holds at most
      // about 5 a service with its LISTEN, and two suites side by side (three workers each) stay
      // within PostgreSQL's default 100: they peaked at 103 with 10 (2026-11-29 13:56)
      PG_POOL_MAX: String(HARNESS.pgPool.max),
      // and none kept open when idle (production: all of search's, PG_POOL_KEEP), for the same budget
      PG_POOL_KEEP: String(HARNESS.pgPool.keep),
      ...extraEnv,
    };
    const mesh = new TestMesh(env, natsPort, dbPrefix, probeSeed);
    mesh.nats = nats;
    mesh.natsDir = natsDir;
    mesh.natsTls = tls;
    if (options.sharedRun) {
      mesh.logDir = join(natsDir, 'logs');
      mkdirSync(mesh.logDir);
    }
    try {
      // as every mesh starts: the operator provisions the stream before any service, which may not
      if (options.provisionBus !== false) await mesh.provisionBus();
      await mesh.startApps(apps);
    } catch (err) {
      await mesh.close();
      throw err;
    }
    return mesh;
  }

  get natsUrl(): string {
    return this.env.NATS_URL as string;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.apps.get('gateway')?.port}/api/v1`;
  }

  databaseUrl(service: ServiceName): string {
    const url = new URL(PG_SERVER_URL);
    url.pathname = `/${this.dbPrefix}${service}`;
    return url.toString();
  }

  /** Starts these apps, HARNESS.startConcurrency at a time. */
  private async startApps(apps: ServiceName[]): Promise<void> {
    await inLanes(apps, HARNESS.startConcurrency, (name) => this.startApp(name));
  }

  async startApp(name: ServiceName, port?: number): Promise<RunningApp> {
    this.refuseOnShared('start an app');
    if (!this.cloned.has(name)) {
      this.cloned.add(name);
      await cloneMigratedDatabase(name, this.env, this.dbPrefix);
    }
    const log = this.logs.get(name) ?? [];
    this.logs.set(name, log);
    const fixed = port ?? this.apps.get(name)?.port;
    for (let attempt = 1; ; attempt++) {
      const logFile = this.logDir && openSync(join(this.logDir, `${name}.log`), 'a');
      const app = spawnApp(
        name,
        this.env,
        fixed ?? (await freePort()),
        logFile ||
          ((line) => {
            log.push(line);
            if (process.env.TEST_SHOW_LOGS) process.stderr.write(`[${name}] ${line}\n`);
          }),
      );
      if (logFile) closeSync(logFile);
      this.apps.set(name, app);
      const exitedEarly = app.exited.then((code) => {
        throw new Error(`${name} exited with ${code} during start-up:\n${this.recentLines(name, 20).join('\n')}`);
      });
      const readiness = observedReadiness(app);
      try {
        await Promise.race([waitFor(`${name} readiness`, readiness.ready, HARNESS.readyTimeoutMs, HARNESS.readyPollMs), exitedEarly]);
      } catch (err) {
        // a free port chosen here can be taken by another process before the service binds it
        // (other test files run at the same time): choose again
        if (fixed === undefined && attempt < 3 && /EADDRINUSE/.test((err as Error).message)) continue;
        // a start that never became ready says what its last poll saw and what the app printed
        if (/not ready within/.test((err as Error).message)) {
          (err as Error).message += `\nlast poll: ${readiness.last()}\n${name}'s last lines:\n${this.recentLines(name, 30).join('\n')}`;
        }
        throw err;
      }
      exitedEarly.catch(() => undefined);
      return app;
    }
  }

  /** An app's last output lines: what this process read, or the tail of a shared mesh's log file. */
  private recentLines(name: ServiceName, lines: number): string[] {
    if (!this.logDir) return (this.logs.get(name) ?? []).slice(-lines);
    const file = join(this.logDir, `${name}.log`);
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(-lines) : [];
  }

  /** A shared mesh serves other files after this one: no file stops, kills or adds its apps. */
  private refuseOnShared(what: string): void {
    if (this.shared) throw new Error(`a test file may not ${what} of a shared mesh (TestMesh.shared): it needs a mesh of its own (TestMesh.start)`);
  }

  /** Graceful stop (SIGTERM); resolves with the exit code. */
  async stopApp(name: ServiceName): Promise<number | null> {
    this.refuseOnShared('stop an app');
    const app = this.apps.get(name);
    return app ? stopApp(app) : null;
  }

  /** SIGKILL: the process dies mid-work with no chance to clean up. */
  async killApp(name: ServiceName): Promise<void> {
    this.refuseOnShared('kill an app');
    const app = this.apps.get(name);
    if (!app || app.child.exitCode !== null) return;
    app.child.kill('SIGKILL');
    await app.exited;
  }

  /** Runs the admin CLI against this mesh; resolves with its JSON output. */
  async admin(...args: string[]): Promise<any> {
    const { code, stdout, stderr } = await this.adminRaw(args);
    if (code !== 0) throw new Error(`admin ${args[0]} exited ${code}: ${stderr}`);
    return JSON.parse(stdout);
  }

  adminRaw(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, [join(ROOT, 'dist/apps/admin/src/main.js'), ...args], { env: this.env, cwd: ROOT }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    });
  }

  /**
   * A fresh agency workspace with one live key (or whatever the options say): the requests
   * `workspace:create` and `key:create` send, asked as the operator over this mesh's bus without
   * an admin process per call (a fixture; the CLI itself is tested through `admin`).
   */
  async workspace(options: { plan?: string; lenses?: string; mode?: 'live' | 'test' } = {}) {
    const workspace = await this.createWorkspace({ name: `ws-${randomToken(6)}`, plan: options.plan, lenses: options.lenses });
    const key = await this.asOperator<CreatedKey>(SUBJECTS.gateway.keysCreate, {
      workspace_id: workspace.id,
      mode: options.mode ?? 'live',
      name: null,
    } satisfies CreateKeyRequest);
    return { workspace, key: key.key as string, keyId: key.id as string };
  }

  /**
   * A workspace and its owner, as `workspace:create --name <n> [--plan <p>] [--lenses <l,…>]
   * [--plan-credits <n>] [--pack-credits <n>]` creates it, with the CLI's defaults (plan agency,
   * all four lenses, no credits): the request the CLI sends, asked as the operator without an
   * admin process (a fixture; the CLI's workspace:create is tested through `admin`).
   */
  async createWorkspace(options: { name: string; plan?: string; lenses?: string; planCredits?: number; packCredits?: number }): Promise<CreatedWorkspace> {
    return this.asOperator<CreatedWorkspace>(SUBJECTS.gateway.workspacesCreate, {
      name: options.name,
      plan: (options.plan ?? 'agency') as CreateWorkspaceRequest['plan'],
      lenses: options.lenses ? [...new Set(options.lenses.split(',').map((lens) => lens.trim() as Lens))] : [...LENSES],
      plan_credits: options.planCredits ?? 0,
      pack_credits: options.packCredits ?? 0,
    } satisfies CreateWorkspaceRequest);
  }

  /**
   * A key of a workspace, as `key:create --workspace <id> --mode <mode> [--member <usr_id>]`
   * creates it: the request the CLI sends, asked as the operator over this mesh's bus without an
   * admin process (a fixture; the CLI's key:create is tested through `admin`, admin-cli e2e).
   */
  async key(workspaceId: string, mode: 'live' | 'test', options: { member?: string; name?: string } = {}): Promise<CreatedKey> {
    return this.asOperator<CreatedKey>(SUBJECTS.gateway.keysCreate, {
      workspace_id: workspaceId,
      mode,
      name: options.name ?? null,
      ...(options.member !== undefined ? { member_id: options.member } : {}),
    } satisfies CreateKeyRequest);
  }

  /** A request-reply as the admin CLI sends it (the operator's identity and context); a domain error throws. */
  async asOperator<T>(subject: string, body: unknown): Promise<T> {
    this.operatorClient ??= connectMesh(this.identityOptions('operator')).then((nc) => {
      this.clients.push(nc);
      return nc;
    });
    // a fixture's request, not the behaviour under test: a service answering that its database is
    // at capacity (two suites side by side can hold PostgreSQL's 100 connections) is asked again,
    // as its answer says, within the same operator deadline
    const deadline = Date.now() + HARNESS.operatorTimeoutMs;
    for (;;) {
      const packet = await askService<T>(await this.operatorClient, subject, { ctx: operatorContext(), body }, Math.max(1, deadline - Date.now()));
      if ((packet.err as { code?: string } | undefined)?.code === 'service_unavailable' && Date.now() + 250 < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      if (packet.err) throw new Error(`${subject} answered ${JSON.stringify(packet.err)}`);
      return packet.response as T;
    }
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (response.status >= 500) this.showRecentLogs(`${method} ${path} answered ${response.status}`);
    return { status: response.status, headers: response.headers, text, body: parsed as T };
  }

  /**
   * What each app logged last (warn and above unless TEST_LOG_LEVEL says otherwise), on stderr: a
   * 5xx in a run whose logs are gone (CI) says why it happened.
   */
  showRecentLogs(why: string, lines = 4): void {
    const recent = [...this.logs.keys()].map((name) => this.recentLines(name, lines).map((line) => `  [${name}] ${briefly(line)}`).join('\n')).filter(Boolean);
    process.stderr.write(`[mesh] ${why}; the apps' last log lines:\n${recent.join('\n') || '  (none)'}\n`);
  }

  /** The environment an app of this mesh runs with (its own NATS identity), as spawnApp gives it. */
  appEnv(name: ServiceName): NodeJS.ProcessEnv {
    const { [MESH_NATS_IDENTITY_DIR]: _dir, ...env } = this.env;
    return { ...env, NATS_NKEY_SEED_FILE: join(this.natsDir, 'identities', `${name}.nk`) };
  }

  /** Connection options of one of the mesh's own identities (a service's, or the operator's). */
  identityOptions(identity: NatsIdentity): ConnectionOptions {
    const seed = readFileSync(join(this.natsDir, 'identities', `${identity}.nk`), 'utf8').trim();
    return { servers: this.natsUrl, authenticator: nkeyAuthenticator(seed), inboxPrefix: natsInboxPrefix(identity), ...this.clientTls() };
  }

  /** Connection options of the probe identity (publishes and subscribes anything). */
  probeOptions(): ConnectionOptions {
    return { ...this.probe.options(this.natsUrl), ...this.clientTls() };
  }

  /** Provisions the EVENTS stream as the operator, as the mesh's start does (`migrate.js bus`). */
  provisionBus(): Promise<ProvisionOutcome> {
    const seedFile = (identity: NatsIdentity) => join(this.natsDir, 'identities', `${identity}.nk`);
    return provisionBus(this.natsUrl, { seedFile }, { ...this.clientTls(), settings: eventsStreamSettings(this.env) });
  }

  private clientTls(): Pick<ConnectionOptions, 'tls'> {
    const tls = this.natsTls;
    if (!tls) return {};
    const servername = this.env.NATS_TLS_SERVER_NAME;
    return { tls: { ca: readFileSync(tls.caFile, 'utf8'), cert: readFileSync(tls.client.cert, 'utf8'), key: readFileSync(tls.client.key, 'utf8'), ...(servername ? { servername } : {}) } };
  }

  /** A NATS client on this mesh's server as the probe identity, closed with the mesh. */
  async natsClient(): Promise<NatsConnection> {
    const nc = await connectMesh(this.probeOptions());
    this.clients.push(nc);
    return nc;
  }

  /** A request-reply call to a service, as the gateway makes it. */
  async rpc<T = any>(subject: string, ctx: Partial<RequestContext>, body: unknown): Promise<{ response?: T; err?: any }> {
    // one connection for every rpc, also when the first ones are asked at once
    this.rpcClient ??= this.natsClient();
    const nc = await this.rpcClient;
    const packet = await askService<T>(nc, subject, { ctx: testContext(ctx), body }, HARNESS.rpcTimeoutMs);
    return { response: packet.response, err: packet.err };
  }

  async query<R = any>(service: ServiceName, sql: string, params: unknown[] = []): Promise<R[]> {
    const client = await connectPatiently(this.databaseUrl(service));
    try {
      return (await client.query(sql, params)).rows as R[];
    } finally {
      await client.end();
    }
  }

  /** Stops the mesh and drops its databases; a shared mesh is handed back instead, still running. */
  async close(): Promise<void> {
    if (!this.shared) await Promise.all([...this.apps.values()].map((app) => stopApp(app, HARNESS.stopGraceMs)));
    await Promise.all(this.clients.map((nc) => nc.close().catch(() => undefined)));
    this.clients = [];
    this.rpcClient = undefined;
    this.operatorClient = undefined;
    if (this.shared) {
      for (const [child, listener] of this.shared.listeners) child.off('exit', listener);
      this.shared.listeners = [];
      this.shared.pool.release(this.shared.key);
      return;
    }
    this.nats?.kill('SIGKILL');
    rmSync(this.natsDir, { recursive: true, force: true });
    await dropDatabases(this.dbPrefix);
  }
}

/**
 * A connection of the test's own (it reads what the services stored): refused with "too many
 * clients" (53300) while two suites side by side hold the server's connections, it is tried again
 * for up to HARNESS.operatorTimeoutMs. The services' own connections are what the tests assert on
 * and get no such help.
 */
async function connectPatiently(connectionString: string): Promise<Client> {
  const deadline = Date.now() + HARNESS.operatorTimeoutMs;
  for (;;) {
    const client = new Client({ connectionString });
    try {
      await client.connect();
      return client;
    } catch (err) {
      await client.end().catch(() => undefined);
      if ((err as { code?: string }).code !== '53300' || Date.now() + 250 > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** A probe identity's seed, made here so that a shared mesh can hand it to the next file. */
function probeIdentitySeed(): Uint8Array {
  return nkeys.createUser().getSeed();
}

async function dropDatabases(prefix: string): Promise<void> {
  const { rows } = await onPgServer((c) => c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [prefix]));
  // at once, each on its connection: a DROP DATABASE waits for a checkpoint, and drops asked
  // together share one instead of waiting for one each
  await Promise.all(rows.map((row) => onPgServer((c) => c.query(`DROP DATABASE IF EXISTS ${quoted(row.datname)} WITH (FORCE)`))));
}

/**
 * Stops a kept mesh and drops its databases (one evicted from the pool, broken, or left at the
 * end of the run). No file uses it, so nothing waits on a graceful stop: its apps are killed
 * (SIGKILL), then its nats-server.
 */
async function stopPooledMesh(kept: PooledMesh): Promise<void> {
  const [nats, ...apps] = kept.children;
  await Promise.all(
    apps.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    }),
  );
  nats.kill('SIGKILL');
  for (const dir of kept.dirs) rmSync(dir, { recursive: true, force: true });
  await dropDatabases((JSON.parse(kept.data) as SharedMeshData).dbPrefix);
}

/**
 * The e2e project's globalTeardown: stops the meshes still kept in this process (a run with
 * --runInBand ran its files here) and drops the databases of every shared mesh of this run (the
 * workers' meshes were killed when their workers exited).
 */
export async function stopSharedMeshes(pool: MeshPool): Promise<void> {
  await Promise.all(pool.drain().map((kept) => stopPooledMesh(kept)));
  const run = process.env.TEST_MESH_RUN;
  if (run) await dropDatabases(sharedDbPrefix(run));
}

/**
 * Template databases. A service migrates its database at boot (startService); on an empty
 * database that is most of its start-up, and every test file starts its services on new
 * databases. So each service's migrations are applied once, by the migration entry
 * (dist/tools/migrate.js, as the compose and Kubernetes jobs run it), into a template database
 * named after the service and a hash of the built code its migrations come from; a mesh's
 * database is made from it (CREATE DATABASE ... TEMPLATE) before the service's first start.
 * The service still runs its migrations at boot, under the lock, as in production: it finds them
 * applied. Only for databases on this server under the mesh's prefix (a test that points a
 * service elsewhere gets the service's own creation and migration), and only before an app's
 * first start (a test that drops a database and restarts the app sees the app create it).
 */
const TEMPLATE_PREFIX = 'lim_tmpl_';
/** A template of other code is dropped once it is this old (a test run of that code has long finished). */
const STALE_TEMPLATE_MS = 6 * 60 * 60 * 1000;

/** The built files a service's migrations can reach: its own code and the libraries. */
function builtFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

const templateNames = new Map<ServiceName, string>();

function templateName(service: ServiceName): string {
  let name = templateNames.get(service);
  if (!name) {
    const hash = createHash('sha256');
    for (const file of [...builtFiles(join(ROOT, 'dist', 'apps', service)), ...builtFiles(join(ROOT, 'dist', 'libs')), join(ROOT, 'dist', 'tools', 'migrate.js')]) {
      hash.update(file.slice(ROOT.length)).update('\0').update(readFileSync(file)).update('\0');
    }
    name = `${TEMPLATE_PREFIX}${service}_${hash.digest('hex').slice(0, 16)}`;
    templateNames.set(service, name);
  }
  return name;
}

function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export async function onPgServer<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: PG_SERVER_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The service's template, built when missing: migrated under a name of its own, then renamed
 * (a database another process is building is never used half-made; when two build it at once,
 * the first rename wins and the other copy is dropped), closed to connections (CREATE DATABASE
 * ... TEMPLATE needs a template nobody is connected to). Templates of other builds of the code
 * are dropped once stale.
 */
async function ensureTemplate(service: ServiceName): Promise<string> {
  const template = templateName(service);
  const exists = await onPgServer(async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [template])).rowCount === 1);
  if (exists) return template;
  const building = `${TEMPLATE_PREFIX}build_${randomToken(8).toLowerCase()}_`;
  try {
    const migrate = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(ROOT, 'dist/tools/migrate.js'), service, 'run'],
        { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: PG_SERVER_URL, DB_PREFIX: building, LOG_LEVEL: 'warn' } },
        (err, _stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr }),
      );
    });
    if (migrate.code !== 0) throw new Error(`migrating the ${service} template exited ${migrate.code}: ${migrate.stderr}`);
    await onPgServer(async (c) => {
      await c.query(`ALTER DATABASE ${quoted(building + service)} WITH ALLOW_CONNECTIONS false`);
      await c.query(`COMMENT ON DATABASE ${quoted(building + service)} IS ${`'built ${new Date().toISOString()}'`}`);
      await c.query(`ALTER DATABASE ${quoted(building + service)} RENAME TO ${quoted(template)}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // built meanwhile by another test file
      });
    });
  } finally {
    await onPgServer((c) => c.query(`DROP DATABASE IF EXISTS ${quoted(building + service)} WITH (FORCE)`));
  }
  await onPgServer(async (c) => {
    const { rows } = await c.query<{ datname: string; comment: string | null }>(
      `SELECT datname, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE starts_with(datname, $1) AND datname <> $2`,
      [`${TEMPLATE_PREFIX}${service}_`, template],
    );
    for (const row of rows) {
      const built = Date.parse(row.comment?.replace(/^built /, '') ?? '');
      if (Date.now() - (Number.isNaN(built) ? 0 : built) > STALE_TEMPLATE_MS) await c.query(`DROP DATABASE IF EXISTS ${quoted(row.datname)} WITH (FORCE)`);
    }
  });
  return template;
}

/**
 * Every service's template, built at once before the first e2e file starts (the e2e project's
 * globalSetup, test/e2e-setup.ts), rather than by the first files while they start their meshes.
 */
export async function prepareDatabaseTemplates(): Promise<void> {
  await Promise.all(SERVICE_NAMES.map((service) => ensureTemplate(service)));
}

/** Makes the app's database from its template when the mesh's environment puts it on this server under the mesh's prefix and it does not exist yet. */
async function cloneMigratedDatabase(service: ServiceName, env: NodeJS.ProcessEnv, prefix: string): Promise<void> {
  if (env.DATABASE_URL !== PG_SERVER_URL || env[`${service.toUpperCase()}_DATABASE_URL`] || env.DB_PREFIX !== prefix) return;
  const database = `${prefix}${service}`;
  const template = await ensureTemplate(service);
  await onPgServer(async (c) => {
    if ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount === 1) return;
    await c.query(`CREATE DATABASE ${quoted(database)} TEMPLATE ${quoted(template)}`);
  });
}

export function testContext(overrides: Partial<RequestContext> = {}): RequestContext {
  return {
    request_id: `req_test${randomToken(8)}`,
    workspace_id: 'ws_test',
    key_id: 'key_test',
    member_id: 'usr_test',
    member_role: 'owner',
    owner_id: 'usr_test',
    mode: 'live',
    livemode: true,
    api_version: '2026-09-28',
    plan: 'agency',
    lenses: ['leads', 'investors', 'researchers', 'grants'],
    ...overrides,
  };
}

/** One log line in brief: a JSON line's message, reason and subject; anything else cut to its start. */
function briefly(line: string): string {
  try {
    const entry = JSON.parse(line);
    return [entry.msg, entry.subject, entry.reason ?? entry.err?.message].filter(Boolean).join(' | ').slice(0, 300);
  } catch {
    return line.slice(0, 300);
  }
}
