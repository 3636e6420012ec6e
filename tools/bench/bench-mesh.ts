import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ServiceName } from '@app/contracts';
import { randomToken } from '@app/platform';
import { ConnectionOptions } from '@nats-io/transport-node';
import {
  findNatsServer, freePort, httpReady, MESH_NATS_IDENTITY_DIR, probeIdentity, provisionBus, ROOT, RunningApp, spawnApp, startNatsServer, stopApp, waitFor,
} from '../mesh/processes';

/**
 * How long each app may take to answer its readiness check (BENCH_READY_MS, default 30 s). A search
 * process with SEARCH_INDEX=memory is ready once its index is built from the database: at 3M-10M
 * entities, or on a loaded machine at 1M, that is past 30 s (k8s allows it 300 s: startupProbe).
 */
const READY_MS = Number(process.env.BENCH_READY_MS || 30_000);
export const BENCH_PG = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/** A mesh of its own for a benchmark: nats-server, prefixed databases, the chosen apps. */
export interface BenchMesh {
  env: NodeJS.ProcessEnv;
  apps: Map<ServiceName, RunningApp>;
  apiBase: string;
  /** The mesh's nats-server process id. */
  natsPid: number;
  /** The database name prefix of this mesh's services. */
  prefix: string;
  databaseUrl(service: ServiceName): string;
  admin(...args: string[]): any;
  /** NATS connection options of the bench's probe identity. */
  probeOptions: ConnectionOptions;
  close(): Promise<void>;
}

export async function startBenchMesh(apps: ServiceName[], extraEnv: Record<string, string> = {}): Promise<BenchMesh> {
  if (!findNatsServer()) throw new Error('nats-server is needed for the benchmark');
  const natsPort = await freePort();
  const natsDir = mkdtempSync(join(tmpdir(), 'bench-nats-'));
  // the bench's own clients (events published as a service would) connect as a probe identity
  const probe = probeIdentity();
  const { child: nats, identities } = await startNatsServer(natsPort, natsDir, { extraUsers: [probe.user] });
  await provisionBus(`nats://127.0.0.1:${natsPort}`, identities);
  const prefix = `bench_${randomToken(6).toLowerCase()}_`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: BENCH_PG,
    DB_PREFIX: prefix,
    NATS_URL: `nats://127.0.0.1:${natsPort}`,
    [MESH_NATS_IDENTITY_DIR]: identities.dir,
    NATS_NKEY_SEED_FILE: identities.seedFile('operator'),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    ...extraEnv,
  };
  const running = new Map<ServiceName, RunningApp>();
  const databaseUrl = (service: ServiceName) => {
    const url = new URL(BENCH_PG);
    url.pathname = `/${prefix}${service}`;
    return url.toString();
  };
  const close = async () => {
    await Promise.all([...running.values()].map((app) => stopApp(app, 3000)));
    nats.kill('SIGKILL');
    rmSync(natsDir, { recursive: true, force: true });
    const admin = new Client({ connectionString: BENCH_PG });
    await admin.connect();
    const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${prefix}%`]);
    for (const row of rows) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    await admin.end();
  };
  try {
    for (const name of apps) {
      const app = spawnApp(name, env, await freePort(), 'ignore');
      running.set(name, app);
      await waitFor(name, () => httpReady(app.port), READY_MS);
    }
  } catch (err) {
    await close();
    throw err;
  }
  return {
    env,
    apps: running,
    apiBase: `http://127.0.0.1:${running.get('gateway')?.port}/api/v1`,
    probeOptions: probe.options(env.NATS_URL as string),
    natsPid: nats.pid as number,
    prefix,
    databaseUrl,
    admin: (...args: string[]) =>
      JSON.parse(execFileSync(process.execPath, [join(ROOT, 'dist/apps/admin/src/main.js'), ...args], { env, encoding: 'utf8' })),
    close,
  };
}

export function percentile(samples: number[], p: number): number {
  // no answer at all (every request failed or none was sent): NaN, which prints as such and meets no goal
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The fields of /proc/<pid>/stat after the command's `)` (field 3 of stat is [0]), or undefined when the process is gone or this is not Linux. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds (user + system) the given processes have used so far, from /proc (Linux). A figure
 * that machine load does not distort the way throughput is distorted: what one request costs.
 */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const fields = statFields(pid);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  }
  return ticks / 100; // USER_HZ
}

/** Process ids of the PostgreSQL backends serving databases whose names start with `prefix`. */
export async function postgresBackends(prefix: string): Promise<number[]> {
  const admin = new Client({ connectionString: BENCH_PG });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname LIKE $1', [`${prefix}%`]);
    return rows.map((r) => r.pid);
  } finally {
    await admin.end();
  }
}

/** CPU seconds used so far by each of the given processes. */
export const cpuByPid = (pids: number[]): Map<number, number> => new Map(pids.map((pid) => [pid, cpuSeconds([pid])]));

/**
 * Minor page faults the process has taken so far (`minflt`, field 10 of /proc/<pid>/stat), 0 when
 * it is gone or this is not Linux. A PostgreSQL backend takes one on the first touch of each 4 KB
 * of shared memory it has not touched before (two for an 8 KB shared buffer, unless the server
 * runs on huge pages): a young backend reading blocks into buffers spread over `shared_buffers`
 * pays them where an older one does not.
 */
export function minorFaults(pid: number): number {
  return Number(statFields(pid)?.[7] ?? 0);
}

/** Minor page faults so far of each of the given processes. */
export const faultsByPid = (pids: number[]): Map<number, number> => new Map(pids.map((pid) => [pid, minorFaults(pid)]));

/**
 * CPU seconds the processes of `after` used since `before` was taken (or any other count kept per
 * process: faultsByPid); a process that appeared meanwhile (a pool's new PostgreSQL backend)
 * counts whole. One that ended meanwhile is lost.
 */
export const cpuSince = (before: Map<number, number>, after: Map<number, number>): number =>
  [...after].reduce((sum, [pid, cpu]) => sum + cpu - (before.get(pid) ?? 0), 0);
