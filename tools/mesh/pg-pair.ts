import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { parse as parseYaml } from 'yaml';
import { freePort, ROOT, waitFor } from './processes';
import { TcpProxy } from './tcp-proxy';

/**
 * PostgreSQL as production runs it, on one machine: a primary and a streaming standby made from
 * it with `pg_basebackup -R` (synchronous: a commit the primary acknowledged is on the standby
 * too, so a failover loses no acknowledged write), each its own cluster in a directory of ours,
 * and in front of them the two endpoints CloudNativePG gives a cluster: `rw`, which always leads
 * to the primary, and `ro`, which leads to the standby while there is one. A failover does what
 * the operator does: the old primary is stopped, the standby promoted, and `rw` follows it,
 * cutting the connections it held to the old one. Either at once (`failover`, a switchover asked
 * by hand) or, as CloudNativePG fails over, when a watcher that probes the primary sees it stop
 * answering (`watch`, FailoverWatch): the cluster run's pair is watched, and its fault only stops
 * the primary. Continuous backup as CloudNativePG's
 * barman-cloud plugin keeps it: the primary archives every WAL segment (`archive`, under `dir`) and a
 * base backup is taken at start (`backups`), so the run's databases can be restored to any point
 * in time since (npm run restore-drill restores from them).
 */
export class PgPair {
  private readonly rwProxy: TcpProxy;
  private readonly roProxy: TcpProxy;
  private primaryDir: string;
  private standbyDir: string | undefined;
  private primaryPort: number;
  private standbyPort: number | undefined;
  private watcher?: FailoverWatch;

  private constructor(
    private readonly bin: string,
    readonly dir: string,
    ports: { primary: number; standby: number },
    proxies: { rw: TcpProxy; ro: TcpProxy },
  ) {
    this.primaryDir = join(dir, 'primary');
    this.standbyDir = join(dir, 'standby');
    this.primaryPort = ports.primary;
    this.standbyPort = ports.standby;
    this.rwProxy = proxies.rw;
    this.roProxy = proxies.ro;
  }

  /** Starts both clusters in `dir` (made anew) and the two endpoints. */
  static async start(dir: string, ports: { primary: number; standby: number; rw: number; ro: number }): Promise<PgPair> {
    const bin = postgresBinDir();
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    ownedByPostgres(dir);
    mkdirSync(join(dir, 'archive'));
    ownedByPostgres(join(dir, 'archive'));
    const primaryDir = join(dir, 'primary');
    asPostgres(join(bin, 'initdb'), ['-D', primaryDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
    appendFileSync(join(primaryDir, 'postgresql.conf'), [
      `port = ${ports.primary}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'wal_level = replica',
      'max_wal_senders = 10',
      'max_replication_slots = 10',
      'hot_standby = on',
      'max_connections = 400',
      'wal_keep_size = 256MB',
      // continuous backup: every segment copied to the run's archive (a promoted standby archives there too)
      'archive_mode = on',
      `archive_command = '${archiveCommand(join(dir, 'archive'))}'`,
      // in server.log: what a stalled run waited on (statements over 200 ms, lock waits, checkpoints)
      "log_line_prefix = '%m [%p] %d '",
      'log_min_duration_statement = 200',
      'log_lock_waits = on',
      'log_checkpoints = on',
      '',
    ].join('\n'));
    writeFileSync(join(primaryDir, 'pg_hba.conf'), [
      'local all all trust',
      'local replication all trust',
      'host all all 127.0.0.1/32 trust',
      'host replication all 127.0.0.1/32 trust',
      '',
    ].join('\n'));
    ownedByPostgres(join(primaryDir, 'pg_hba.conf'));
    ports = { ...ports, primary: await startOnItsPort(bin, primaryDir, ports.primary) };
    const standbyDir = join(dir, 'standby');
    asPostgres(join(bin, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(ports.primary), '-U', 'postgres', '-D', standbyDir, '-R', '-X', 'stream', '-c', 'fast']);
    appendFileSync(join(standbyDir, 'postgresql.auto.conf'), `port = ${ports.standby}\n`);
    ports = { ...ports, standby: await startOnItsPort(bin, standbyDir, ports.standby) };
    // synchronous from here on: set after the base backup, so the standby's copy does not wait for a standby of its own
    await sql(ports.primary, "ALTER SYSTEM SET synchronous_standby_names = '*'");
    await sql(ports.primary, 'SELECT pg_reload_conf()');
    await waitFor('the standby streaming', async () => {
      const rows = await sql(ports.primary, "SELECT sync_state FROM pg_stat_replication WHERE state = 'streaming'");
      return rows.some((row) => row.sync_state === 'sync');
    }, 30_000, 200);
    const rw = await TcpProxy.start('127.0.0.1', ports.primary, ports.rw);
    const ro = await TcpProxy.start('127.0.0.1', ports.standby, ports.ro);
    const pair = new PgPair(bin, dir, ports, { rw, ro });
    await pair.baseBackup();
    return pair;
  }

  /** Where the primary archives its WAL segments (restore_command copies them back from here). */
  get archiveDir(): string {
    return join(this.dir, 'archive');
  }

  /**
   * A base backup of the primary as a ScheduledBackup takes one: `pg_basebackup` in tar format
   * without WAL, which returns once the segments the backup needs are in the archive, so the
   * backup and the archive restore it. Resolves with the directory holding its base.tar.
   */
  async baseBackup(): Promise<string> {
    const target = join(this.dir, 'backups', new Date().toISOString().replace(/[-:.]/g, ''));
    mkdirSync(join(this.dir, 'backups'), { recursive: true });
    ownedByPostgres(join(this.dir, 'backups'));
    await asPostgresAsync(join(this.bin, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(this.primaryPort), '-U', 'postgres', '-D', target, '-F', 't', '-X', 'none', '-c', 'fast', '--no-sync']);
    return target;
  }

  /** The endpoint that leads to the primary (CloudNativePG's `-rw` service). */
  get rwUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.rwProxy.port}/postgres`;
  }

  /** The endpoint that leads to the standby while there is one (CloudNativePG's `-ro` service). */
  get roUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.roProxy.port}/postgres`;
  }

  get primary(): { port: number; dir: string } {
    return { port: this.primaryPort, dir: this.primaryDir };
  }

  get standby(): { port: number; dir: string } | undefined {
    return this.standbyDir && this.standbyPort ? { port: this.standbyPort, dir: this.standbyDir } : undefined;
  }

  /** The pids of the postmasters running now (from their postmaster.pid files). */
  postmasterPids(): number[] {
    return [join(this.dir, 'primary'), join(this.dir, 'standby')]
      .map((dir) => join(dir, 'postmaster.pid'))
      .filter((file) => existsSync(file))
      .map((file) => Number(readFileSync(file, 'utf8').split('\n')[0]))
      .filter((pid) => pid > 0);
  }

  /**
   * What the operator does when the primary is lost: the old one is gone (stopped as a crash
   * stops it, `-m immediate`: no shutdown checkpoint, its sessions cut), the standby promoted,
   * `rw` (and `ro`) pointed at the new primary. The standby is synchronous, so no commit the
   * primary acknowledged is lost. Resolves with how long it took.
   */
  async failover(): Promise<number> {
    const started = Date.now();
    await this.stopPrimary();
    await this.promoteStandby();
    return Date.now() - started;
  }

  /** The primary stopped as a crash stops it (`-m immediate`), and nothing else: a watcher, or `failover`, promotes the standby. */
  async stopPrimary(): Promise<void> {
    if (existsSync(join(this.primaryDir, 'postmaster.pid'))) await pgCtlAsync(this.bin, this.primaryDir, 'stop', ['-m', 'immediate']);
  }

  /** The watcher started by `watch`, if any. */
  get failoverWatch(): FailoverWatch | undefined {
    return this.watcher;
  }

  /**
   * Starts watching the primary as CloudNativePG does (FailoverWatch): once it has not answered
   * `failureThreshold` probes in a row, the standby is promoted. Once only: after a failover
   * there is no standby left to promote.
   */
  watch(settings: FailoverWatchSettings = failoverWatchSettings(), onFailover?: (failover: WatchedFailover) => void): FailoverWatch {
    this.watcher?.stop();
    this.watcher = new FailoverWatch(this, settings, onFailover);
    this.watcher.start();
    return this.watcher;
  }

  /**
   * The standby promoted and the endpoints repointed (the primary fenced first: stopped if it
   * still runs, so two primaries never take writes).
   */
  async promoteStandby(): Promise<void> {
    if (!this.standbyDir || !this.standbyPort) throw new Error('no standby to promote');
    // not blocking this process meanwhile: a load balancer or clients running in it go on
    await this.stopPrimary();
    await pgCtlAsync(this.bin, this.standbyDir, 'promote');
    const port = this.standbyPort;
    await waitFor('the promoted standby writable', async () => (await sql(port, 'SELECT pg_is_in_recovery() AS r'))[0]?.r === false, 30_000, 100);
    this.primaryDir = this.standbyDir;
    this.primaryPort = port;
    this.standbyDir = undefined;
    this.standbyPort = undefined;
    this.rwProxy.follow(port);
    this.roProxy.follow(port);
  }

  /**
   * Stops the standby, as when the last replica behind CloudNativePG's `-ro` service is gone: the
   * primary first stops waiting for it (commits go on without a synchronous standby), then the
   * standby stops; `ro` leads nowhere until `rw`'s failover moves it.
   */
  async stopStandby(): Promise<void> {
    if (!this.standbyDir) throw new Error('no standby to stop');
    await sql(this.primaryPort, 'ALTER SYSTEM RESET synchronous_standby_names');
    await sql(this.primaryPort, 'SELECT pg_reload_conf()');
    pgCtl(this.bin, this.standbyDir, 'stop', ['-m', 'fast']);
  }

  async stop(): Promise<void> {
    this.watcher?.stop();
    await this.rwProxy.close();
    await this.roProxy.close();
    // both clusters, whichever is primary now (a stopped one has no postmaster.pid)
    for (const dir of [join(this.dir, 'primary'), join(this.dir, 'standby')]) {
      if (existsSync(join(dir, 'postmaster.pid'))) pgCtl(this.bin, dir, 'stop', ['-m', 'immediate']);
    }
  }
}

/**
 * How the pair's watcher decides the primary is lost: as CloudNativePG does with the settings the
 * project ships. CloudNativePG fails over once the primary's readiness probe has failed
 * `failureThreshold` times in a row, `periodSeconds` apart, each failing past `timeoutSeconds`,
 * and `.spec.failoverDelay` has passed (docs/src/failover.md and pkg/specs/pods.go of
 * cloudnative-pg v1.30.0). The shipped examples set these in one file,
 * k8s/examples/postgres/failover-detection/failover-detection.yaml, patched into every Cluster;
 * the watcher's defaults are read from that file (SHIPPED_FAILOVER_DETECTION), so the two cannot
 * drift (test/deploy/k8s.integration-spec.ts checks every rendered Cluster against them). The
 * settings: docs/configuration.md.
 */
export interface FailoverWatchSettings {
  /** PG_PAIR_PROBE_INTERVAL_MS (the readiness probe's periodSeconds): between two probes of the primary. */
  probeIntervalMs: number;
  /** PG_PAIR_PROBE_TIMEOUT_MS (its timeoutSeconds): a probe not answered by then has failed. */
  probeTimeoutMs: number;
  /** PG_PAIR_FAILURE_THRESHOLD (its failureThreshold): failed probes in a row after which the primary is lost. */
  failureThreshold: number;
  /** PG_PAIR_FAILOVER_DELAY_MS (`.spec.failoverDelay`): from then until the standby is promoted. */
  failoverDelayMs: number;
}

/**
 * CloudNativePG's own defaults, where a Cluster sets nothing: the readiness probe every 10 s with
 * a 5 s timeout (pkg/specs/pods.go, ReadinessProbePeriod and TimeoutSeconds), Kubernetes' failure
 * threshold of 3, no failover delay: a stopped primary replaced 20-30 s later.
 */
export const CNPG_FAILOVER_DEFAULTS: FailoverWatchSettings = { probeIntervalMs: 10_000, probeTimeoutMs: 5000, failureThreshold: 3, failoverDelayMs: 0 };

/** The file of the shipped examples that sets every Cluster's failure detection. */
export const FAILOVER_DETECTION_FILE = join(ROOT, 'k8s', 'examples', 'postgres', 'failover-detection', 'failover-detection.yaml');

/**
 * A Cluster's failure detection as CloudNativePG applies it: its `.spec.probes.readiness` over
 * the operator's defaults (a field left out keeps the default), and `.spec.failoverDelay`.
 */
export function detectionOfCluster(cluster: { spec?: { failoverDelay?: number; probes?: { readiness?: { periodSeconds?: number; timeoutSeconds?: number; failureThreshold?: number } } } }): FailoverWatchSettings {
  const readiness = cluster.spec?.probes?.readiness ?? {};
  const seconds = (value: number | undefined, fallbackMs: number) => (value ? value * 1000 : fallbackMs);
  return {
    probeIntervalMs: seconds(readiness.periodSeconds, CNPG_FAILOVER_DEFAULTS.probeIntervalMs),
    probeTimeoutMs: seconds(readiness.timeoutSeconds, CNPG_FAILOVER_DEFAULTS.probeTimeoutMs),
    failureThreshold: readiness.failureThreshold || CNPG_FAILOVER_DEFAULTS.failureThreshold,
    failoverDelayMs: (cluster.spec?.failoverDelay ?? 0) * 1000,
  };
}

/** The shipped examples' failure detection (FAILOVER_DETECTION_FILE), read once. */
export const SHIPPED_FAILOVER_DETECTION: FailoverWatchSettings = detectionOfCluster(parseYaml(readFileSync(FAILOVER_DETECTION_FILE, 'utf8')));

/** The watcher's settings from the environment (PG_PAIR_*), the shipped examples' where unset. */
export function failoverWatchSettings(env: NodeJS.ProcessEnv = process.env): FailoverWatchSettings {
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}: got ${raw}`);
    return value;
  };
  return {
    probeIntervalMs: int('PG_PAIR_PROBE_INTERVAL_MS', SHIPPED_FAILOVER_DETECTION.probeIntervalMs, 100, 600_000),
    probeTimeoutMs: int('PG_PAIR_PROBE_TIMEOUT_MS', SHIPPED_FAILOVER_DETECTION.probeTimeoutMs, 100, 600_000),
    failureThreshold: int('PG_PAIR_FAILURE_THRESHOLD', SHIPPED_FAILOVER_DETECTION.failureThreshold, 1, 100),
    failoverDelayMs: int('PG_PAIR_FAILOVER_DELAY_MS', SHIPPED_FAILOVER_DETECTION.failoverDelayMs, 0, 600_000),
  };
}

/** A failover the watcher made: when the primary was last seen answering, when it counted as lost, when the standby was promoted (epoch ms). */
export interface WatchedFailover {
  lastAnsweredAt: number;
  firstFailedAt: number;
  detectedAt: number;
  promotedAt: number;
  failedProbes: number;
}

/**
 * The pair's watcher, as CloudNativePG's instance manager and operator work: the primary is
 * probed every interval (a connection and `SELECT 1`, as the readiness probe's pg_isready asks
 * whether it accepts connections), each probe failing when not answered within its timeout; after
 * `failureThreshold` failures in a row (and `failoverDelayMs`), the standby is promoted and the
 * endpoints follow it. Nothing else tells it the primary is gone.
 */
export class FailoverWatch {
  private timer?: NodeJS.Timeout;
  private failures = 0;
  private firstFailedAt = 0;
  private lastAnsweredAt = Date.now();
  private stopped = false;
  private done?: WatchedFailover;
  private failed?: Error;
  private readonly waiters: { resolve: (failover: WatchedFailover) => void; reject: (err: Error) => void }[] = [];

  constructor(
    private readonly pair: PgPair,
    readonly settings: FailoverWatchSettings,
    private readonly onFailover?: (failover: WatchedFailover) => void,
  ) {}

  start(): void {
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Resolves with the failover this watcher makes (at once if it has made it); rejects when its promotion failed. */
  failedOver(): Promise<WatchedFailover> {
    if (this.done) return Promise.resolve(this.done);
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.probe().catch((err: Error) => {
        this.stopped = true;
        this.failed = err;
        for (const waiter of this.waiters.splice(0)) waiter.reject(err);
      });
    }, this.settings.probeIntervalMs);
    this.timer.unref();
  }

  private async probe(): Promise<void> {
    const answered = await probePrimary(this.pair.primary.port, this.settings.probeTimeoutMs);
    if (this.stopped) return;
    if (answered) {
      this.failures = 0;
      this.lastAnsweredAt = Date.now();
      return this.schedule();
    }
    if (this.failures++ === 0) this.firstFailedAt = Date.now();
    if (this.failures < this.settings.failureThreshold) return this.schedule();
    const detectedAt = Date.now();
    if (this.settings.failoverDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.settings.failoverDelayMs));
    if (this.stopped) return;
    await this.pair.promoteStandby();
    this.stopped = true;
    this.done = { lastAnsweredAt: this.lastAnsweredAt, firstFailedAt: this.firstFailedAt, detectedAt, promotedAt: Date.now(), failedProbes: this.failures };
    this.onFailover?.(this.done);
    for (const waiter of this.waiters.splice(0)) waiter.resolve(this.done);
  }
}

/**
 * Resolves when the server behind `url` accepts a write (`txid_current()` assigns a transaction id,
 * which a server in recovery refuses; nothing is stored), trying every `everyMs` until `timeoutMs`;
 * with the time (epoch ms) it first did.
 */
export async function writesAccepted(url: string, timeoutMs: number, everyMs = 100): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const client = new Client({ connectionString: url, connectionTimeoutMillis: 1000, query_timeout: 1000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT txid_current()');
      return Date.now();
    } catch (err) {
      if (Date.now() > until) throw new Error(`no write accepted at ${new URL(url).host} within ${timeoutMs} ms: ${(err as Error).message}`);
    } finally {
      await client.end().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Whether the server on `port` accepts a connection and answers `SELECT 1` within `timeoutMs`. */
async function probePrimary(port: number, timeoutMs: number): Promise<boolean> {
  const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Debian's PostgreSQL server binaries (PG_BIN_DIR, else the newest /usr/lib/postgresql/<v>/bin). */
export function postgresBinDir(): string {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  if (!versions.length) throw new Error('PostgreSQL server binaries not found: install PostgreSQL (Debian: apt-get install postgresql) or set PG_BIN_DIR');
  return join(root, versions.sort((a, b) => Number(b) - Number(a))[0], 'bin');
}

/**
 * The archive_command that copies a segment into `archiveDir`: through a temporary name, flushed
 * to disk before it takes its own, so a crash never leaves a partial segment under a segment's
 * name; a segment archived already succeeds when it is the same file (PostgreSQL may ask again
 * after a crash), and fails when it differs.
 */
export function archiveCommand(archiveDir: string): string {
  const to = `${archiveDir}/%f`;
  return `if [ -f ${to} ]; then cmp -s %p ${to}; else cp %p ${to}.tmp && sync ${to}.tmp && mv ${to}.tmp ${to}; fi`;
}

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user. */
export function asPostgres(command: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  const result = root
    ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8' })
    : spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`);
}

export function ownedByPostgres(path: string): void {
  if (process.getuid?.() !== 0) return;
  const ids = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(path, ids('-u'), ids('-g'));
}

/** asPostgres without waiting in this process's event loop. */
function asPostgresAsync(command: string, args: string[]): Promise<void> {
  const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  return new Promise((resolve, reject) => execFile(file, argv, { encoding: 'utf8' }, (err, stdout, stderr) =>
    err ? reject(new Error(`${command} ${args.join(' ')} failed: ${stderr || stdout || err.message}`)) : resolve()));
}

function pgCtlAsync(bin: string, dir: string, action: 'stop' | 'promote', extra: string[] = []): Promise<void> {
  return asPostgresAsync(join(bin, 'pg_ctl'), ['-D', dir, '-w', '-t', '60', ...extra, action]);
}

/**
 * Starts the cluster in `dir` on `port`, or, when another process took that port after it was
 * chosen free (the server's log: "could not bind"; two suites side by side, 2026-11-30), on
 * another free port (postgresql.auto.conf's last `port` wins). The port it listens on.
 */
async function startOnItsPort(bin: string, dir: string, port: number): Promise<number> {
  const log = join(dir, 'server.log');
  for (let attempt = 1; ; attempt++) {
    // pg_ctl appends to the log: only this attempt's lines say why this attempt failed
    const before = existsSync(log) ? readFileSync(log, 'utf8').length : 0;
    try {
      pgCtl(bin, dir, 'start');
      return port;
    } catch (err) {
      const taken = existsSync(log) && /could not bind IPv4 address "127\.0\.0\.1": Address already in use/.test(readFileSync(log, 'utf8').slice(before));
      if (!taken || attempt === 3) throw err;
      port = await freePort();
      appendFileSync(join(dir, 'postgresql.auto.conf'), `port = ${port}\n`);
    }
  }
}

export function pgCtl(bin: string, dir: string, action: string, extra: string[] = []): void {
  asPostgres(join(bin, 'pg_ctl'), ['-D', dir, '-w', '-t', '60', ...(action === 'start' ? ['-l', join(dir, 'server.log')] : []), ...extra, action]);
}

/**
 * One statement on its own connection (a port of this machine, as postgres, or a URL), ended after:
 * what the pair and the restore drill ask of servers they start and stop. A server stopped under
 * it fails the connect or the query, which the caller handles; unheard, pg's 'error' event would
 * end the whole process, so it is listened to.
 */
export async function sqlOnce<T = any>(server: number | string, text: string, values: unknown[] = [], connectTimeoutMs = 3000): Promise<T[]> {
  const where = typeof server === 'number' ? { host: '127.0.0.1', port: server, user: 'postgres', database: 'postgres' } : { connectionString: server };
  const client = new Client({ ...where, connectionTimeoutMillis: connectTimeoutMs });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

const sql = (port: number, text: string) => sqlOnce(port, text);
