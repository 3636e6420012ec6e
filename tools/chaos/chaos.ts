import { ChildProcess, execFile } from 'node:child_process';
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Client } from 'pg';
import { PUBLIC_EVENT_TYPES, SERVICE_NAMES, ServiceName } from '@app/contracts';
import { loadSequencesConfig } from '../../apps/sequences/src/sequences.config';
import { randomToken } from '@app/platform';
import { cpuSeconds as cpuOf, percentile } from '../bench/bench-mesh';
import { MeshCluster } from '../mesh/cluster-shape';
import { writesAccepted } from '../mesh/pg-pair';
import { ApiConnectionError, isInProgressConflict, LeadIntelClient } from '../../packages/client/src';
import { UPSTREAM_TIME_HEADER } from '../mesh/ingress';
import { startDemoSandbox } from '../mesh/demo-sandbox';
import { freePort, httpReady, inLanes, MESH_NATS_IDENTITY_DIR, NATS_START_TIMEOUT_MS, probeIdentity, provisionBus, ROOT, RunningApp, spawnApp, startNatsServer, waitFor } from '../mesh/processes';
import { SmtpSink } from '../mesh/smtp-sink';
import { HttpsReceiver, testCertificate } from '../webhooks/https-receiver';

/**
 * Chaos, measured: mixed API traffic (lead creates and updates, reveals, enrollments, webhook
 * deliveries to a local HTTPS receiver, emails to a local SMTP sink) while each service in turn
 * is SIGKILLed and started again, and nats-server is restarted once. Then it checks what must
 * hold whatever crashed: every lead.* event in crm's outbox reached the subscribed endpoint at
 * least once; every credit ledger sums to its balance; no lead got two different emails and
 * re-sent ones (same Message-ID, at-least-once) stay within the documented bound; every request
 * retried with its Idempotency-Key after a 5xx or a dropped connection converged to one result.
 * The traffic goes through packages/client as its users run it (its retries and defaults); on
 * the cluster shape, through nginx configured as the prod Ingress (tools/mesh/ingress.ts). There
 * it also checks what the client's callers saw (no error after the client's retries, the
 * database failover included; p99), that a keyed POST whose gateway died is answered soon after
 * (another gateway takes its claim over), that search read its pages on the standby until the
 * failover, that a keyed POST answered by one gateway is replayed by the other, and, with both
 * gateways restarted at the spec's limit, that the rate limit is exact across them.
 * `npm run chaos` (CHAOS_PHASE_MS, CHAOS_WARMUP_MS, CHAOS_PG_DIR, CHAOS_WORKERS, CHAOS_RATE or `--rate`,
 * CHAOS_CAPACITY_CLIENTS, CHAOS_CAPACITY_MAX_CLIENTS, CHAOS_CAPACITY_STEP_MS, CHAOS_FAULTS or `--faults <regex>`,
 * CHAOS_TRACE, CHAOS_REPORT); a shorter run is in `npm test`. It prints issue 35's goals first and a
 * verdict for each last.
 * Each phase prints the requests answered in it and the ones still waiting, so a stall shows what it waits on.
 *
 * Two ways to send: closed loop (each client sends its next request when its last one is answered;
 * the single-process run's default) measures how fast the machine answers when kept saturated;
 * open loop (ChaosOptions.rate) schedules requests at a fixed total rate whatever the answers do,
 * and counts each one's latency from its scheduled time, retries included, so a stall is counted
 * in full for every request it held back instead of delaying the requests that would have seen it
 * (no coordinated omission). A latency goal is read at a stated
 * load below saturation: the open loop's. The cluster run's default does both: a closed-loop phase
 * measures the shape's capacity for the run's mix on the machine (ChaosOptions.capacity), then the
 * run offers half of it, open loop; `--rate` offers a rate of its own instead.
 */

export interface ChaosOptions {
  /** Traffic before each kill, and after the last one. */
  phaseMs: number;
  /**
   * Single-process shape: how long a service may take to answer ready after its start or restart
   * (default READY_TIMEOUT_MS; the tests pass the harness's TEST_READY_TIMEOUT_MS).
   */
  readyTimeoutMs?: number;
  /** Single-process shape: how many services start at once (default: the machine's cores; a start is mostly CPU). */
  startConcurrency?: number;
  /**
   * Open loop: the requests due in the first milliseconds of traffic are the fresh mesh's first of
   * each kind (cold code paths, connections being opened): their latencies are printed apart, not
   * in the p99s; their answers count in every other check. 0: none. Only the fresh mesh's first
   * seconds: a process a fault restarts warms its paths before it joins its queue groups
   * (libs/platform warm-up.ts), so every request after a kill counts in the p99s.
   */
  warmUpMs?: number;
  /**
   * Concurrent clients. Open loop: the requests are numbered round these clients (the mix of kinds
   * and the leads' names are the closed loop's), each sending its own when due or as soon as its
   * previous one is answered, so they bound the requests in flight.
   */
  workers: number;
  /**
   * Open loop: requests per second in all, sent at their scheduled times over the same mix and
   * round the gateways; 0 or absent: closed loop (or, with `capacity`, a share of the capacity
   * measured first). A run whose answers fall behind the offered rate fails its latency check (the
   * mesh did not keep up).
   */
  rate?: number;
  /**
   * Without a `rate`: first measure the shape's capacity for the run's mix on this machine
   * (closed loop, clients doubled until they add little), then offer `share` of it, open loop
   * (the cluster run's default: `npm run chaos -- --cluster` without `--rate`).
   */
  capacity?: CapacityOptions;
  say: (line: string) => void;
  /**
   * The shape production runs (tools/mesh/cluster-shape.ts): two processes of every service, two
   * gateways (the traffic spread over both), three clustered nats-servers, a PostgreSQL primary
   * with a streaming standby. Its faults: each process SIGKILLed and restarted in turn, the node
   * that leads the EVENTS stream SIGKILLed and restarted, a rolling restart (SIGTERM, one process
   * at a time) of everything, then the database's primary stopped, which the pair's watcher sees
   * and fails over as CloudNativePG does (tools/mesh/pg-pair.ts). `npm run chaos -- --cluster`.
   */
  cluster?: boolean;
  /** The faults to run, by name (default: every fault of the shape); `npm test`'s cluster variant runs one. */
  faults?: (name: string) => boolean;
  /**
   * The checks to make, by name (default: all); the others' figures are printed as measured, not
   * checked, and a check that needs steps of its own (the rate limit's gateway restarts) is not run.
   */
  checks?: (name: string) => boolean;
  /**
   * The services' PostgreSQL pools (PG_POOL_MAX, PG_POOL_IDLE_MS, PG_POOL_KEEP). Unset (`npm run chaos`): the
   * shipped defaults, as every other setting. `npm test`'s short variant passes its harness's
   * (test/harness.ts, HARNESS.pgPool): its mesh shares the test suite's PostgreSQL server, whose
   * default 100 connections the suite's meshes must fit in (docs/testing.md), and no check of the
   * run reads the pool's size (what it checks is nothing lost or doubled across the kills).
   */
  pgPool?: PgPoolSettings;
}

/** A pool size, idle timeout and connections kept a chaos run's services get instead of the shipped ones (ChaosOptions.pgPool). */
export interface PgPoolSettings {
  max: number;
  idleMs: number;
  /** PG_POOL_KEEP; unset: the shipped default. */
  keep?: number;
}

/**
 * The capacity phase (ChaosOptions.capacity): the run's mix sent by clients back to back, a step
 * of `stepMs` at `clients`, then at twice as many, until a doubling answers less than
 * SATURATED_GAIN more requests per second (saturated: more clients only queue) or `maxClients`
 * is reached. The capacity is the best step's rate of answered requests; the run then offers
 * `share` of it, open loop.
 */
export interface CapacityOptions {
  clients: number;
  maxClients: number;
  stepMs: number;
  share: number;
}

/** The cluster run's capacity phase when nothing is set (CHAOS_CAPACITY_CLIENTS, CHAOS_CAPACITY_MAX_CLIENTS, CHAOS_CAPACITY_STEP_MS). */
export const DEFAULT_CAPACITY: CapacityOptions = { clients: 8, maxClients: 128, stepMs: 4000, share: 0.5 };

/** A doubling of the clients that answers less than this much more is saturation. */
const SATURATED_GAIN = 0.1;

/**
 * One step of the capacity phase: clients back to back, requests answered (a 2xx or 4xx after the
 * client's retries) in its seconds, their rate, and the latencies of those answered in it (ms).
 */
export interface CapacityStep {
  clients: number;
  answered: number;
  seconds: number;
  rate: number;
  p50?: number;
  p99?: number;
}

/**
 * What the capacity phase's steps so far say: the best step (its rate is the capacity), whether
 * the last doubling of the clients answered less than SATURATED_GAIN more (saturated), the rate
 * offered (the share of the capacity, at least 1 request/s), and whether the phase is done
 * (saturated, or the next step would pass maxClients).
 */
export function capacityOf(steps: CapacityStep[], c: CapacityOptions): { best: CapacityStep; saturated: boolean; offered: number; done: boolean } {
  if (!steps.length) throw new Error('no capacity step measured');
  const best = steps.reduce((a, b) => (b.rate > a.rate ? b : a));
  const [before, last] = [steps[steps.length - 2], steps[steps.length - 1]];
  const saturated = before !== undefined && last.rate < before.rate * (1 + SATURATED_GAIN);
  return { best, saturated, offered: Math.max(1, Math.round(best.rate * c.share)), done: saturated || last.clients * 2 > c.maxClients };
}

/** What the capacity phase measured (ChaosReport.capacity). */
export interface CapacityReport {
  steps: CapacityStep[];
  /** The best step's rate (requests/s): the capacity measured. */
  rate: number;
  /** A doubling of the clients added less than SATURATED_GAIN; if not, the capacity is at least `rate`. */
  saturated: boolean;
  /** The share of it offered, and the rate that is (requests/s, open loop). */
  share: number;
  offered: number;
  /** The phase's requests and its client's calls, apart from the run's: a saturating load is not the run's, its errors are printed, not checked. */
  requests: number;
  caller: ClientView['caller'];
  attempts: ClientView['attempts'];
  statuses: Record<string, number>;
  /** The best step's latencies (ms): closed loop, so its queue (clients over rate, Little's law). */
  p50: number;
  p99: number;
  /** How long the mesh then took to send what the phase left queued (emails, webhook deliveries), before the run's traffic began. */
  settleMs: number;
}

/** The names of the checks a run makes (ChaosOptions.checks). */
export const CHAOS_CHECKS = {
  converged: 'idempotent retries converged',
  oneLead: 'one lead per create',
  events: 'every lead.* event delivered at least once',
  ledgers: 'every ledger sums to its balance',
  emails: 'no lead got two different emails; re-sends within the bound',
  noErrors: "no error reaches the client's caller (no 5xx, 409 in progress or missing answer after its retries), the database failover included",
  latency: 'p99 under 1 s during faults and under 100 ms outside',
  takeover: 'a keyed POST re-sent after its gateway died is answered within 5 s',
  replay: 'an idempotent replay works on either gateway',
  rateLimit: 'the rate limit is exact across the two gateways',
  replicaReads: 'search reads its pages on the standby, and on the new primary after the failover',
} as const;

/** The checks that nothing was lost or doubled, whatever crashed. */
const NOTHING_LOST: readonly string[] = [CHAOS_CHECKS.converged, CHAOS_CHECKS.oneLead, CHAOS_CHECKS.events, CHAOS_CHECKS.ledgers, CHAOS_CHECKS.emails];

/** Issue 35's goals for the cluster run, as it states them ("A real load", "The client users run", "Disks"). */
const CLUSTER_GOALS = [
  'p99 < 100 ms outside faults', 'p99 < 1 s during faults', "zero errors reach the client's caller, the database failover included",
  'nothing lost or doubled', 'every other check',
] as const;

/**
 * Each goal with its verdict, from the checks made: the p99s (read at the offered rate, open loop,
 * only when the mesh kept up with it), zero errors to the caller, nothing lost or doubled, and the
 * other checks. A goal whose checks were not made in this run is not listed.
 */
export function goalVerdicts(report: ChaosReport, keptUp: boolean): ChaosReport['goals'] {
  const goals: ChaosReport['goals'] = [];
  const made = (names: readonly string[]) => report.checks.filter((c) => names.includes(c.name));
  const { p99OutsideFaults: outside, p99DuringFaults: during } = report.clients;
  const rate = report.pacing ? `, ${report.pacing.achieved} of ${report.pacing.offered} requests/s answered${keptUp ? '' : ' (did not keep up)'}` : ', closed loop';
  if (made([CHAOS_CHECKS.latency]).length) {
    goals.push({ goal: CLUSTER_GOALS[0], met: keptUp && outside < 100, detail: `${outside} ms${rate}` });
    goals.push({ goal: CLUSTER_GOALS[1], met: keptUp && during < 1000, detail: `${during} ms${rate}` });
  }
  for (const c of made([CHAOS_CHECKS.noErrors])) goals.push({ goal: CLUSTER_GOALS[2], met: c.ok, detail: c.detail });
  const lost = made(NOTHING_LOST);
  if (lost.length) {
    const failed = lost.filter((c) => !c.ok);
    goals.push({ goal: CLUSTER_GOALS[3], met: failed.length === 0, detail: failed.length ? `failed: ${failed.map((c) => c.name).join('; ')}` : `${lost.length} checks: ${lost.map((c) => c.name).join('; ')}` });
  }
  const others = report.checks.filter((c) => !NOTHING_LOST.includes(c.name) && c.name !== CHAOS_CHECKS.noErrors && c.name !== CHAOS_CHECKS.latency);
  if (others.length) {
    const failed = others.filter((c) => !c.ok);
    goals.push({ goal: CLUSTER_GOALS[4], met: failed.length === 0, detail: failed.length ? `failed: ${failed.map((c) => c.name).join('; ')}` : others.map((c) => c.name).join('; ') });
  }
  return goals;
}

/** What clients saw (cluster runs print and check it). */
export interface ClientView {
  /**
   * Calls of packages/client (each with its own retries), and those whose caller got an error
   * after them: a 5xx or a 409 "still in progress" (errors), or no answer (ApiConnectionError);
   * of those, how many while the database failed over (counted in the others too).
   */
  caller: { calls: number; errors: number; unanswered: number; duringFailover: number };
  /** The client's attempts, and those that failed (no answer, 5xx, 409 in progress): each retried, or the last of a call that failed. */
  attempts: { made: number; failed: number };
  /** p99 of answered attempts (ms), started while a fault was in progress and outside faults. */
  p99DuringFaults: number;
  p99OutsideFaults: number;
  /**
   * Outside faults, cluster runs: p99 of the gateways' own part as nginx saw it (from sending to
   * a gateway to its answer's header), and the event-loop delay of this process (the clients):
   * what the client's p99 holds beyond the mesh's own time.
   */
  p99GatewayOutsideFaults?: number;
  chaosLoopDelayP99?: number;
  /**
   * During the database failover: attempts that failed (the client retried them), and from the
   * primary's stop (ms): until the pair's watcher counted it lost (its probes failed in a row), until
   * the standby was promoted, until the database behind `rw` accepted a write (`ms`), and until the
   * first keyed POST /leads sent through the API after the stop was answered 201.
   */
  failover?: { ms: number; failedAttempts: number; detectedMs?: number; promotedMs?: number; apiWriteMs?: number };
}

export interface ChaosCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ChaosReport {
  kills: string[];
  requests: number;
  retriedRequests: number;
  statuses: Record<string, number>;
  /** Requests answered between one event of the run and the next, and how long that took. */
  phases: { event: string; requests: number; ms: number }[];
  checks: ChaosCheck[];
  clients: ClientView;
  /** Open loop: the offered rate, and the rate requests were answered at (from the first one's scheduled time to the last answer). */
  pacing?: { offered: number; achieved: number; maxSendLagMs: number };
  /** The capacity measured before the run (ChaosOptions.capacity), whose share was offered. */
  capacity?: CapacityReport;
  /** The issue's goals, each with its verdict (also printed last). */
  goals: { goal: string; met: boolean; detail: string }[];
}

const PG = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
/** The sends a sequences process has in flight at most (its shipped SEQUENCES_SEND_CONCURRENCY): what one of its kills may send again. */
const SEND_CONCURRENCY = loadSequencesConfig({}).sendConcurrency;
const LEAD_EVENTS = PUBLIC_EVENT_TYPES.filter((t) => t.startsWith('lead.'));
/** What the traffic's search pages ask for (the seed's industries and titles). */
const SEARCH_WORDS = ['software', 'fintech', 'healthcare', 'cto', 'founder', 'security'];
/** The spec's rate limit, which the gateways run with when RATE_LIMIT_PER_MINUTE is not set. */
const DEFAULT_RATE_LIMIT = 120;
/** Answers may fall this far short of the offered rate (the schedule's rounding, the last answers' time) before the run counts as not keeping up. */
const RATE_TOLERANCE = 0.02;
/** The capacity phase's clients are numbered from here (their leads' names apart from the run's clients'). */
const CAPACITY_CLIENT = 10_000;
/** How long the run waits after the capacity phase for the mesh to send what it queued (emails, webhook deliveries). */
const CAPACITY_SETTLE_MS = 30_000;
/**
 * Open loop: the clients the rate is spread over (CHAOS_WORKERS), the most requests in flight at
 * once: each sends every few seconds, so a request held by a fault (an attempt's deadline, the
 * database failover) rarely holds back its client's next one, which comes due after the fault.
 */
const PACED_CLIENTS = 256;

interface Outcome {
  /** 2xx bodies' ids, one per answer that ended a request (retries included). */
  ids: Set<string>;
  /** The client's attempts that got a 5xx, no answer or "still in progress" before the request ended. */
  failedAttempts: number;
  /** Calls of the client whose caller got an error, after which the request was sent again. */
  callerErrors: number;
  status: number;
  /** From its first 409 "still in progress" to its answer (ms; 0 without one). */
  inProgressMs: number;
}

/** One fault of a run: what it does, and its name in the report. */
interface Fault {
  name: string;
  run: () => Promise<void>;
  /** The database fails over: attempts that fail meanwhile are also reported on their own (ClientView.failover). */
  failover?: boolean;
}

/** The database failover's times (ms from the primary's stop, `stoppedAt` epoch ms), as ClientView.failover reports them. */
interface FailoverTimes {
  ms: number;
  stoppedAt?: number;
  detectedMs?: number;
  promotedMs?: number;
  apiWriteMs?: number;
}

/** The mesh a run drives: one process of each service, or the cluster shape. */
interface Shape {
  /** The operator's environment (admin CLI). */
  env: NodeJS.ProcessEnv;
  /** The gateways' API base URLs; traffic goes round them. */
  gateways: string[];
  /** PostgreSQL (server URL) where the services' databases are. */
  databaseServer: string;
  faults: Fault[];
  close: () => Promise<void>;
  /** The cluster shape's processes and databases (cluster runs only). */
  cluster?: MeshCluster;
  /** Transactions run on the standby in search's database, read when asked and just before the failover. */
  standbySearchXacts?: { atFailover?: number; read: () => Promise<number | undefined> };
  /** Each process's readiness as it answers it now (`/health/ready`: status and body), for a run that gave requests up (single shape). */
  readiness?: () => Promise<string[]>;
}

/**
 * The settings every service of a chaos run gets: where its local peers are and nothing else of
 * its own, so every deadline, budget, lease and tick is the service's shipped default and the run
 * measures what ships. The one exception is the rate limit: the run's traffic stands in for many
 * users' and is sent with one key, so that key's limit is lifted; the rate-limit check restarts
 * both gateways with the shipped one. A caller whose PostgreSQL server other meshes share (the test
 * suite) may give the pools' size, idle timeout and connections kept (`pgPool`); `npm run chaos` gives none.
 */
export function chaosSettings(cert: { caFile: string }, sandboxEnv: NodeJS.ProcessEnv | undefined, pgPool?: PgPoolSettings): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_LEVEL: 'fatal',
    RATE_LIMIT_PER_MINUTE: '1000000',
    // the local HTTPS webhook receiver: its test CA, its loopback address
    NODE_EXTRA_CA_CERTS: cert.caFile,
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
    ...(sandboxEnv ?? {}),
    // only when the caller shares its PostgreSQL server with other meshes (ChaosOptions.pgPool)
    ...(pgPool ? { PG_POOL_MAX: String(pgPool.max), PG_POOL_IDLE_MS: String(pgPool.idleMs), ...(pgPool.keep === undefined ? {} : { PG_POOL_KEEP: String(pgPool.keep) }) } : {}),
  };
}

/**
 * Where the cluster's PostgreSQL pair lives: under CHAOS_PG_DIR when set, else on tmpfs
 * (/dev/shm) where there is one, else in the run's directory. The run measures the mesh: on a disk
 * that stalls fsync, every commit of the mesh waits out each stall (docs/operations.md), which is
 * the machine's latency, not the mesh's. Process kills, the failover and crash recovery behave
 * the same on tmpfs; CHAOS_PG_DIR=<dir on a disk> measures with the disk.
 */
function pgDir(dir: string): string {
  const root = pgRoot();
  return root ? join(root, `chaos-pg-${basename(dir)}`) : join(dir, 'cluster', 'postgres');
}
const SHARED_MEMORY_DIR = '/dev/shm';

/** The directory the cluster runs' PostgreSQL pairs are made in (see pgDir); none: each run's own. */
function pgRoot(): string | undefined {
  return process.env.CHAOS_PG_DIR || (existsSync(SHARED_MEMORY_DIR) ? SHARED_MEMORY_DIR : undefined);
}

/**
 * A run killed by hand leaves its PostgreSQL pair where pgDir put it (on tmpfs: memory, until
 * removed). Before a cluster run starts, such pairs are removed: a `chaos-pg-*` directory older
 * than ten minutes whose postmasters are not running (a run that old still has them; a younger
 * one may be starting, before its first postmaster.pid).
 */
function removeAbandonedPgDirs(): void {
  const root = pgRoot();
  if (!root || !existsSync(root)) return;
  const running = (pidFile: string) => {
    if (!existsSync(pidFile)) return false;
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 0);
      return true;
    } catch {
      return false;
    }
  };
  for (const name of readdirSync(root).filter((n) => n.startsWith('chaos-pg-'))) {
    const path = join(root, name);
    try {
      if (Date.now() - statSync(path).mtimeMs < 10 * 60_000) continue;
      if (['primary', 'standby'].some((role) => running(join(path, role, 'postmaster.pid')))) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
}

/** The processes' log level with CHAOS_LOG_DIR: CHAOS_LOG_LEVEL, else info. */
function logLevel(): string {
  return process.env.CHAOS_LOG_LEVEL || 'info';
}

/** How long a service of the single-process shape may take to answer ready after its start or restart, unless ChaosOptions.readyTimeoutMs says otherwise. */
export const READY_TIMEOUT_MS = 60_000;
/** Between a service's SIGKILL and its restart (single-process shape). */
const RESTART_PAUSE_MS = 300;
/** How long the checks wait for every lead.* event to reach the endpoint, and for the queued emails to go out. */
const EVENTS_WAIT_MS = 90_000;
const EMAILS_WAIT_MS = 30_000;
/**
 * How long the requests still in flight when the traffic stops may go on being called again (an
 * integrator's queue re-calling one that keeps failing) before they are given up as unanswered:
 * two of the client's calls at the shipped deadlines. A mesh that stays broken then fails the run
 * with those requests named, within the run's bound, instead of outliving it.
 */
const DRAIN_WAIT_MS = 120_000;
/** The services the single-process shape kills in turn, in this order, before it restarts the nats-server. */
const SINGLE_KILL_ORDER: ServiceName[] = ['crm', 'search', 'billing', 'sequences', 'webhooks', 'gateway'];

/**
 * The longest the single-process run waits by its own bounds, from its plan: the nats-server's
 * start, the services' starts (a readiness wait for each round started at once), each fault (a
 * service's kill, pause and readiness wait; the nats-server's restart), the traffic before each
 * fault and after the last, and the checks' waits for the deliveries and the emails. What is not a
 * wait of the plan (the set-up's operator commands, the requests in flight when the traffic stops,
 * given up after DRAIN_WAIT_MS, the checks' queries) is the caller's to allow for.
 */
export function singleRunWaitsMs(options: Pick<ChaosOptions, 'phaseMs' | 'readyTimeoutMs' | 'startConcurrency'>): number {
  const ready = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const concurrency = Math.max(1, options.startConcurrency ?? availableParallelism());
  const start = NATS_START_TIMEOUT_MS + Math.ceil(SERVICE_NAMES.length / concurrency) * ready;
  const faults = SINGLE_KILL_ORDER.length * (RESTART_PAUSE_MS + ready) + NATS_START_TIMEOUT_MS;
  const traffic = (SINGLE_KILL_ORDER.length + 2) * options.phaseMs;
  return start + faults + traffic + EVENTS_WAIT_MS + EMAILS_WAIT_MS;
}

/** One process of each service on one nats-server; each service SIGKILLed in turn, then nats-server restarted. */
async function singleShape(dir: string, prefix: string, settings: NodeJS.ProcessEnv, logDir: string | undefined, options: Pick<ChaosOptions, 'readyTimeoutMs' | 'startConcurrency' | 'say'>): Promise<Shape> {
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const natsPort = await freePort();
  const probe = probeIdentity().user;
  const started = await startNatsServer(natsPort, dir, { extraUsers: [probe] });
  let nats: ChildProcess = started.child;
  // the services wait for the stream: the operator provisions it (restarts of nats-server keep it on disk)
  await provisionBus(`nats://127.0.0.1:${natsPort}`, started.identities);
  const env: NodeJS.ProcessEnv = {
    ...settings,
    DATABASE_URL: PG,
    DB_PREFIX: prefix,
    NATS_URL: `nats://127.0.0.1:${natsPort}`,
    [MESH_NATS_IDENTITY_DIR]: join(dir, 'identities'),
    NATS_NKEY_SEED_FILE: join(dir, 'identities', 'operator.nk'),
  };
  const apps = new Map<ServiceName, RunningApp>();
  // the processes this run kills itself (a fault, the end): any other exit is a crash, said at once
  const killing = new Set<RunningApp>();
  const start = async (name: ServiceName, port?: number) => {
    const output = logDir ? (line: string) => appendFileSync(join(logDir, `${name}.log`), `${new Date().toISOString()} ${line}\n`) : 'ignore';
    const app = spawnApp(name, logDir ? { ...env, LOG_LEVEL: logLevel() } : env, port ?? (await freePort()), output);
    apps.set(name, app);
    void app.exited.then((code) => {
      if (!killing.has(app)) options.say(`${name} exited on its own (code ${code}, signal ${app.child.signalCode}); nothing restarts it in this shape`);
    });
    await waitFor(`${name} ready`, () => httpReady(app.port), readyTimeoutMs, 100);
  };
  const close = async () => {
    for (const app of apps.values()) {
      killing.add(app);
      app.child.kill('SIGKILL');
    }
    await Promise.all([...apps.values()].map((app) => app.exited));
    nats.kill('SIGKILL');
  };
  try {
    await inLanes(SERVICE_NAMES, options.startConcurrency ?? availableParallelism(), (name) => start(name));
  } catch (err) {
    await close();
    throw err;
  }
  const faults: Fault[] = SINGLE_KILL_ORDER.map((name) => ({
    name: `${name} SIGKILLed and restarted`,
    run: async () => {
      const app = apps.get(name)!;
      killing.add(app);
      app.child.kill('SIGKILL');
      await app.exited;
      await new Promise((r) => setTimeout(r, RESTART_PAUSE_MS));
      await start(name, app.port);
    },
  }));
  faults.push({
    name: 'nats-server restarted',
    run: async () => {
      nats.kill('SIGTERM');
      await new Promise((r) => nats.once('exit', r));
      nats = (await startNatsServer(natsPort, dir, { extraUsers: [probe] })).child;
    },
  });
  const readiness = () =>
    Promise.all([...apps.values()].map(async (app) => {
      const answer = await fetch(`http://127.0.0.1:${app.port}/health/ready`, { signal: AbortSignal.timeout(2000) })
        .then(async (res) => `${res.status} ${(await res.text()).slice(0, 300)}`, (err: Error) => `no answer (${err.message})`);
      return `${app.name} (pid ${app.child.pid}${app.child.exitCode !== null || app.child.signalCode !== null ? ', exited' : ''}): ${answer}`;
    }));
  return {
    env,
    readiness,
    gateways: [`http://127.0.0.1:${apps.get('gateway')!.port}/api/v1`],
    databaseServer: PG,
    faults,
    close,
  };
}

/** The cluster shape and its faults (ChaosOptions.cluster). */
async function clusterShape(dir: string, prefix: string, settings: NodeJS.ProcessEnv, logDir: string | undefined, failover: FailoverTimes): Promise<Shape> {
  removeAbandonedPgDirs();
  const cluster = await MeshCluster.start({
    dir: join(dir, 'cluster'),
    env: logDir ? { ...settings, LOG_LEVEL: logLevel() } : settings,
    dbPrefix: prefix,
    // the PostgreSQL pair's clusters on tmpfs, or CHAOS_PG_DIR (see pgDir); removed after the run
    pgDir: pgDir(dir),
    output: logDir ? (id, line) => appendFileSync(join(logDir, `${id}.log`), `${new Date().toISOString()} ${line}\n`) : undefined,
  });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const faults: Fault[] = [];
  const order = [...cluster.apps.filter((a) => a.name !== 'gateway'), ...cluster.apps.filter((a) => a.name === 'gateway').slice(0, 1)];
  for (const app of order) {
    faults.push({
      name: `${app.id} SIGKILLed and restarted`,
      run: async () => {
        await cluster.killApp(app.id);
        await pause(300);
        await cluster.startApp(app.id);
      },
    });
  }
  faults.push({
    name: 'the EVENTS leader nats-server SIGKILLed and restarted',
    run: async () => {
      const leader = (await cluster.eventsLeader()) ?? 'nats-1';
      await cluster.killNats(leader);
      await pause(1000);
      await cluster.startNats(cluster.node(leader));
    },
  });
  faults.push({
    name: 'rolling restart of every process (SIGTERM, one at a time)',
    run: async () => {
      for (const app of cluster.apps) {
        await cluster.stopApp(app.id);
        await cluster.startApp(app.id);
      }
    },
  });
  const standbySearchXacts: NonNullable<Shape['standbySearchXacts']> = {
    read: async () => {
      const standby = cluster.pg.standby;
      if (!standby) return undefined;
      const db = new Client({ host: '127.0.0.1', port: standby.port, user: 'postgres', database: 'postgres' });
      await db.connect();
      try {
        const { rows } = await db.query<{ n: string }>('SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = $1', [`${prefix}search`]);
        return rows.length ? Number(rows[0].n) : undefined;
      } finally {
        await db.end();
      }
    },
  };
  faults.push({
    name: 'database failover (the primary stopped; the watcher promotes the standby)',
    failover: true,
    run: async () => {
      standbySearchXacts.atFailover = await standbySearchXacts.read().catch(() => undefined);
      const watch = cluster.pg.failoverWatch;
      if (!watch) throw new Error('the PostgreSQL pair has no failover watcher');
      const promoted = watch.failedOver();
      // the fault is the primary's loss and nothing else: the watcher must see it (CloudNativePG's probes) and fail over
      await cluster.pg.stopPrimary();
      failover.stoppedAt = Date.now();
      const { probeIntervalMs, probeTimeoutMs, failureThreshold, failoverDelayMs } = watch.settings;
      const writable = await writesAccepted(cluster.pg.rwUrl, (failureThreshold + 1) * (probeIntervalMs + probeTimeoutMs) + failoverDelayMs + 60_000);
      const watched = await promoted;
      failover.ms = writable - failover.stoppedAt;
      failover.detectedMs = watched.detectedAt - failover.stoppedAt;
      failover.promotedMs = watched.promotedAt - failover.stoppedAt;
    },
  });
  // clients reach the gateways through nginx configured as the prod Ingress, as they do in production
  return { env: cluster.env, gateways: [cluster.apiUrl], databaseServer: cluster.pg.rwUrl, faults, close: () => cluster.stop(), cluster, standbySearchXacts };
}

/**
 * How long a caller waits before calling again after its `n`th call the client gave up on (a 5xx,
 * no answer, or 409 "in progress" after the client's own retries): as the error catalogue tells
 * integrators ("retry with backoff"), 200 ms doubling up to 2 s, each pause between half and all
 * of that (jitter), so callers whose requests failed together do not all come back at once.
 */
export function retryPause(n: number, random: () => number = Math.random): number {
  const ceiling = Math.min(2000, 200 * 2 ** Math.max(0, n - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}

/**
 * Kill to writes accepted, through the API: once the failover's fault has stopped the primary
 * (`failover.stoppedAt`), a keyed POST /leads every 200 ms, unretried, until one is answered 201;
 * resolves with the ms from the stop to that answer. Its leads are of the `failover.chaos` domain,
 * not counted with the traffic's.
 */
async function firstApiWriteAfterStop(api: string, apiKey: string, failover: FailoverTimes): Promise<number> {
  while (failover.stoppedAt === undefined) await new Promise((r) => setTimeout(r, 20));
  const stoppedAt = failover.stoppedAt;
  for (let n = 0; ; n++) {
    const idem = randomToken(16);
    const res = await direct(api, 'POST', '/leads', apiKey, { full_name: `Failover ${n}`, email: `failover-${idem.toLowerCase()}@failover.chaos` }, idem).catch(() => undefined);
    if (res?.status === 201) return Date.now() - stoppedAt;
    if (Date.now() - stoppedAt > 600_000) throw new Error('no write answered 201 through the API within 600 s of the primary\'s stop');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** CPU seconds a process has used since it started (bench-mesh's reading of /proc); 0 when it is gone. */
const cpuSeconds = (pid: number | undefined): number => (pid ? cpuOf([pid]) : 0);

/** The children of each pid, from /proc. */
function childrenOf(pids: Set<number>): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
      if (pids.has(ppid)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * CPU seconds used by each process of the cluster alive now (since it started: a restarted one
 * only since its restart), the nats-servers and the PostgreSQL pair's servers (their processes
 * alive now) together, nginx in front of the gateways (master and worker), and this process
 * (clients, receivers).
 */
function cpuByProcess(cluster: MeshCluster): string {
  const s = (n: number) => n.toFixed(1);
  const parts = cluster.apps.map((app) => `${app.id} ${s(cpuSeconds(app.running?.child.pid))}`);
  parts.push(`nats-servers ${s(cluster.nats.reduce((sum, node) => sum + cpuSeconds(node.child?.pid), 0))}`);
  const postmasters = new Set(cluster.pg.postmasterPids());
  parts.push(`PostgreSQL ${s([...postmasters, ...childrenOf(postmasters)].reduce((sum, pid) => sum + cpuSeconds(pid), 0))}`);
  const nginx = cluster.proxy?.pid;
  if (nginx) parts.push(`nginx ${s([nginx, ...childrenOf(new Set([nginx]))].reduce((sum, pid) => sum + cpuSeconds(pid), 0))}`);
  parts.push(`this process ${s(cpuSeconds(process.pid))}`);
  return parts.join(', ');
}

/** What one call of packages/client was answered, and what each of its attempts saw. */
interface CallResult {
  /** The answer its caller got; 0: none (the client threw ApiConnectionError). */
  status: number;
  /** The answer's body, parsed (a proxy's HTML page as text). */
  body: any;
  /** Each attempt's status, 0 for no answer. */
  attempts: number[];
  /** Attempts that failed: no answer, a 5xx or a 409 "still in progress". */
  failed: number;
  /** nginx's time from sending the last attempt to a gateway to its answer's header (ms), when it said. */
  upstreamMs?: number;
  /** When an attempt was first answered 409 "still in progress" (performance.now()). */
  inProgressAt?: number;
}

/** The upstream header's seconds, one per gateway tried ("0.012" or "0.000, 0.012"), as milliseconds in all. */
function upstreamMs(header: string | null): number | undefined {
  const seconds = (header ?? '').split(',').map((part) => Number(part.trim())).filter((n) => Number.isFinite(n));
  return seconds.length ? Math.round(seconds.reduce((sum, n) => sum + n, 0) * 1000) : undefined;
}

type LooseRequest = (method: string, path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * One call of the API through packages/client as its users run it: its retries, backoff and
 * defaults. The fetch it is given only watches each attempt (its status, a 409 "still in
 * progress", nginx's upstream time) and sends it as the global fetch would.
 */
async function callThroughClient(baseUrl: string, apiKey: string, method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<CallResult> {
  const result: CallResult = { status: 0, body: undefined, attempts: [], failed: 0 };
  const watch = async (request: Request): Promise<Response> => {
    let response: Response;
    try {
      response = await fetch(request);
    } catch (err) {
      result.attempts.push(0);
      result.failed++;
      throw err;
    }
    result.attempts.push(response.status);
    result.upstreamMs = upstreamMs(response.headers.get(UPSTREAM_TIME_HEADER));
    if (response.status >= 500) result.failed++;
    if (response.status === 409 && isInProgressConflict(409, await response.clone().json().catch(() => undefined))) {
      result.failed++;
      result.inProgressAt ??= performance.now();
    }
    return response;
  };
  const client = new LeadIntelClient({ apiKey, baseUrl, fetch: watch });
  const init = { ...(body === undefined ? {} : { body }), ...(idempotencyKey ? { params: { header: { 'Idempotency-Key': idempotencyKey } } } : {}) };
  try {
    const { data, error, response } = await (client.api.request as unknown as LooseRequest)(method.toLowerCase(), path, init);
    result.status = response.status;
    result.body = data ?? error;
  } catch (err) {
    if (!(err instanceof ApiConnectionError)) throw err;
  }
  return result;
}

/**
 * One request straight to a gateway, unretried, its body as text: the checks' probes (which
 * gateway answers is theirs to choose, and each answer is what they check), not the traffic.
 */
async function direct(api: string, method: string, path: string, apiKey: string, body?: unknown, idempotencyKey?: string): Promise<{ status: number; text: string; headers: Headers }> {
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${api}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

function p99(values: number[]): number {
  return values.length ? Math.round(percentile(values, 99)) : 0;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const { say } = options;
  const dir = mkdtempSync(join(tmpdir(), 'chaos-'));
  // the cluster's PostgreSQL runs as the postgres user (tools/mesh/pg-pair.ts): it must reach its directory in here
  if (options.cluster) chmodSync(dir, 0o755);
  const prefix = `chaos_${randomToken(6).toLowerCase()}_`;
  const cert = await testCertificate();
  const receiver = await HttpsReceiver.start(cert);
  const sink = await SmtpSink.start();
  const sandbox = await startDemoSandbox({}, () => undefined);
  // CHAOS_LOG_DIR: each process's log (level info, or CHAOS_LOG_LEVEL) appended to <dir>/<process>.log, to see what a stalled phase was waiting on
  const logDir = process.env.CHAOS_LOG_DIR;
  // CHAOS_TRACE: every request's outcome as a JSON line in this file (when it was due, its latency, its answers, the fault it overlapped or followed), to see where slow answers cluster
  const traceFile = process.env.CHAOS_TRACE;
  const trace: string[] = [];
  const settings = chaosSettings(cert, sandbox?.env, options.pgPool);
  const failover: FailoverTimes = { ms: 0 };
  let shape: Shape | undefined;
  const report: ChaosReport = {
    kills: [], requests: 0, retriedRequests: 0, statuses: {}, phases: [], checks: [], goals: [],
    clients: { caller: { calls: 0, errors: 0, unanswered: 0, duringFailover: 0 }, attempts: { made: 0, failed: 0 }, p99DuringFaults: 0, p99OutsideFaults: 0 },
  };
  try {
    shape = options.cluster ? await clusterShape(dir, prefix, settings, logDir, failover) : await singleShape(dir, prefix, settings, logDir, options);
    const { env, gateways } = shape;
    if (options.cluster) say(`goals (issue 35), decided at the end: ${CLUSTER_GOALS.join('; ')}`);
    say(options.cluster
      ? `cluster up: two processes of every service, two gateways behind nginx (as the prod Ingress), three clustered nats-servers, PostgreSQL primary + standby (in ${dirname(pgDir(dir))}; CHAOS_PG_DIR to move them); HTTPS receiver, SMTP sink, demo mail sandbox`
      : 'mesh up: six services, one nats-server (generated permissions), HTTPS receiver, SMTP sink, demo mail sandbox');
    const runAdmin = (args: string[]) =>
      new Promise<any>((resolve, reject) =>
        execFile(process.execPath, [join(ROOT, 'dist/apps/admin/src/main.js'), ...args], { env, cwd: ROOT }, (err, stdout, stderr) =>
          err ? reject(new Error(`admin ${args[0]}: ${stderr}`)) : resolve(JSON.parse(stdout))));
    // the set-up's operator commands, before any fault: once, in a loaded CI run on Node 24, the
    // gateway answered its readiness but NATS had no responder for gateway.workspaces.create (a
    // replica out of its queue group for a moment, e.g. after a slow DatabaseWatch probe; not
    // proven), which the CLI reports at once as "no <service> service is running": ask again then
    const admin = async (...args: string[]) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await runAdmin(args);
        } catch (err) {
          if (attempt >= 20 || !/no \w+ service is running/.test((err as Error).message)) throw err;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    };

    await admin('search:seed', '--count', '400');
    const workspace = await admin('workspace:create', '--name', 'chaos', '--plan-credits', '100000');
    const key = (await admin('key:create', '--workspace', workspace.id, '--mode', 'live')).key as string;
    let turn = 0;
    const call = (method: string, path: string, body?: unknown, idempotencyKey?: string) =>
      callThroughClient(gateways[turn++ % gateways.length], key, method, path, body, idempotencyKey);
    const endpoint = await call('POST', '/webhook_endpoints', { url: receiver.url('/hook'), events: [...LEAD_EVENTS] });
    if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
    const mailbox = await admin('mailbox:create', '--workspace', workspace.id, '--email', 'out@sender.chaos', '--smtp-url', `smtp://127.0.0.1:${sink.port}`, '--daily-cap', '100000');
    const file = join(dir, 'sequence.json');
    writeFileSync(file, JSON.stringify({ name: 'Chaos', mailbox_ids: [mailbox.id], steps: [{ type: 'email', subject: 'Hi {{first_name|there}}', body: 'Hello. {{unsubscribe_url}}' }] }));
    const sequence = (await admin('sequence:create', '--workspace', workspace.id, '--file', file)).id as string;
    await admin('sequence:launch', '--sequence', sequence);
    const entities = ((await call('GET', '/search?lens=leads')).body?.data ?? []).map((hit: { entity_id: string }) => hit.entity_id) as string[];
    const standbyXactsBefore = await shape.standbySearchXacts?.read().catch(() => undefined);
    const query = async <R>(service: ServiceName, sql: string, params: unknown[] = []): Promise<R[]> => {
      const url = new URL(shape!.databaseServer);
      url.pathname = `/${prefix}${service}`;
      const db = new Client({ connectionString: url.toString() });
      await db.connect();
      try {
        return (await db.query(sql, params)).rows as R[];
      } finally {
        await db.end();
      }
    };
    // the lead.* events of the run's workspace in crm's outbox, and how many of them the endpoint has not received
    const delivered = new Set<string>();
    const leadEvents = async (): Promise<{ outbox: number; missing: number }> => {
      for (const r of receiver.received) {
        try {
          delivered.add(JSON.parse(r.rawBody).id);
        } catch {
          // not an event
        }
      }
      const outbox = await query<{ id: string }>('crm', `SELECT id FROM outbox WHERE type LIKE 'lead.%' AND envelope->>'workspace_id' = $1`, [workspace.id]);
      return { outbox: outbox.length, missing: outbox.filter((e) => !delivered.has(e.id)).length };
    };
    // emails made but not yet handed to the SMTP sink, and enrollments whose email is due but not yet made
    const queuedEmails = async (): Promise<number> =>
      (await query<{ n: number }>('sequences', `SELECT count(*)::int AS n FROM email_messages WHERE status = 'queued'`).catch(() => [{ n: 0 }]))[0].n;
    const dueEnrollments = async (): Promise<number> =>
      (await query<{ n: number }>('sequences', `SELECT count(*)::int AS n FROM enrollments WHERE status = 'active' AND next_send_at <= now()`).catch(() => [{ n: 0 }]))[0].n;

    // --- traffic: every request ends in a 2xx or a 4xx; a 5xx, no answer or a 409 "still in progress" is retried (with the same key)
    const outcomes = new Map<string, Outcome>();
    const leads: string[] = [];
    let stopped = false;
    /** When the traffic stopped (performance.now()), and the requests given up after DRAIN_WAIT_MS of it. */
    let stoppedAt = 0;
    const abandoned: string[] = [];
    // a fault is in progress from its start until the mesh is whole again
    let faultInProgress = false;
    let currentFault = 'before the first fault';
    let inFailover = false;
    let failoverFailures = 0;
    // bumped as each fault begins and ends: a request whose number changed while it waited overlapped a fault
    let faultEpoch = 0;
    // the database failover's number while it is in progress
    let failoverEpoch: number | undefined;
    const during: number[] = [];
    // open loop: the requests that overlapped the database failover (also in during), printed apart
    const duringFailover: number[] = [];
    const duringOtherFaults: number[] = [];
    const outside: number[] = [];
    // open loop: the requests due in the warm-up (options.warmUpMs), printed apart
    const warmUp: number[] = [];
    let warmUpUntil = 0;
    const outsideUpstream: number[] = [];
    // outside faults, by kind of request (lead, update, reveal, enroll, read, search): where the slow answers are
    const outsideByKind = new Map<string, number[]>();
    const outsideOf = (kind: string, ms: number) => {
      if (!outsideByKind.has(kind)) outsideByKind.set(kind, []);
      outsideByKind.get(kind)!.push(ms);
    };
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    // what each client is doing, so a phase without answers says which request hangs and how
    const inFlight = new Map<number, { label: string; since: number; statuses: number[] }>();
    // search pages answered after the failover (read on the new primary: the standby is gone)
    const searchAfterFailover = { answered: 0, failed: 0 };
    let failedOver = false;
    let requestIds = 0;
    // what attempt() counts into: the run's figures, or the capacity phase's own while it runs (its latencies in `latencies`)
    let tally: { statuses: Record<string, number>; caller: ClientView['caller']; attempts: ClientView['attempts']; latencies?: number[] } = { statuses: report.statuses, caller: report.clients.caller, attempts: report.clients.attempts };
    const traceStart = performance.now();
    if (traceFile) trace.push(JSON.stringify({ startedAt: Date.now() }));
    /**
     * One request: a call of the client (which retries as it does), and when its caller still got
     * an error (a 5xx, a 409 "still in progress" or no answer), counted as such, the same request
     * with the same key called again later, as an integrator's queue would, until it ends in a 2xx
     * or a 4xx (so the checks of what was stored have one answer per request). Closed loop: each
     * call's time is a latency. Open loop (scheduled, its time on the schedule): one latency for the
     * request, from its scheduled time to its final answer, everything in between included.
     */
    const attempt = async (label: string, method: string, path: string, body: unknown, idempotencyKey?: string, scheduled?: number) => {
      const outcome: Outcome = { ids: new Set(), failedAttempts: 0, callerErrors: 0, status: 0, inProgressMs: 0 };
      let inProgressSince: number | undefined;
      if (idempotencyKey) outcomes.set(`${label}:${idempotencyKey}`, outcome);
      const current = { label: `${method} ${path}`, since: scheduled ?? performance.now(), statuses: [] as number[] };
      const id = requestIds++;
      inFlight.set(id, current);
      const opened = { epoch: faultEpoch, faulted: faultInProgress, failover: inFailover };
      for (let calls = 0; calls < 100; calls++) {
        const faulted = faultInProgress;
        const failingOver = inFailover;
        const sent = performance.now();
        const res = await call(method, path, body, idempotencyKey);
        const ms = performance.now() - sent;
        const quiet = !faulted && !faultInProgress;
        for (const status of res.attempts) tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
        current.statuses.push(...res.attempts);
        tally.attempts.made += res.attempts.length;
        tally.attempts.failed += res.failed;
        outcome.failedAttempts += res.failed;
        if (failingOver || inFailover) failoverFailures += res.failed;
        if (tally.latencies) {
          if (res.status !== 0) tally.latencies.push(ms);
        } else {
          if (res.status !== 0 && quiet && res.upstreamMs !== undefined) outsideUpstream.push(res.upstreamMs);
          if (res.status !== 0 && scheduled === undefined) (quiet ? outside : during).push(ms);
          if (res.status !== 0 && quiet && scheduled === undefined) outsideOf(label, ms);
        }
        tally.caller.calls++;
        if (res.inProgressAt !== undefined) inProgressSince ??= res.inProgressAt;
        if (label === 'search' && failedOver && !failingOver) searchAfterFailover[res.status === 200 ? 'answered' : 'failed']++;
        if (res.status === 0 || res.status >= 500 || isInProgressConflict(res.status, res.body)) {
          const { caller } = tally;
          if (res.status === 0) caller.unanswered++;
          else caller.errors++;
          if (failingOver || inFailover) caller.duringFailover++;
          // each one named with the fault it happened in, so a failed check says where to look
          if (caller.errors + caller.unanswered <= 30) {
            const message = typeof res.body === 'object' ? res.body?.error?.message ?? '' : String(res.body ?? '').replace(/\s+/g, ' ').slice(0, 80);
            say(`  ${res.status || 'no answer'} to ${method} ${path} after ${res.attempts.length} attempts (${res.attempts.join(',')}; ${currentFault}): ${message}`);
          }
          outcome.callerErrors++;
          if (stopped && performance.now() - stoppedAt > DRAIN_WAIT_MS) {
            abandoned.push(`${method} ${path} (${outcome.callerErrors} calls failed, the last ${res.status || 'no answer'}: ${typeof res.body === 'object' ? res.body?.error?.message ?? '' : ''})`);
            break;
          }
          await new Promise((r) => setTimeout(r, retryPause(outcome.callerErrors)));
          continue;
        }
        if (inProgressSince !== undefined) outcome.inProgressMs = performance.now() - inProgressSince;
        outcome.status = res.status;
        if (res.status < 300 && res.body?.id) outcome.ids.add(res.body.id);
        break;
      }
      if (traceFile) {
        trace.push(JSON.stringify({ label, at: Math.round((scheduled ?? current.since) - traceStart), ms: Math.round(performance.now() - (scheduled ?? current.since)), statuses: current.statuses, fault: currentFault, faulted: opened.faulted || opened.epoch !== faultEpoch }));
      }
      if (scheduled !== undefined && outcome.status !== 0) {
        const ms = performance.now() - scheduled;
        if (scheduled < warmUpUntil) warmUp.push(ms);
        else if (opened.faulted || faultInProgress || opened.epoch !== faultEpoch) {
          during.push(ms);
          (failoverEpoch !== undefined && opened.epoch <= failoverEpoch && failoverEpoch <= faultEpoch ? duringFailover : duringOtherFaults).push(ms);
        } else {
          outside.push(ms);
          outsideOf(label, ms);
        }
      }
      inFlight.delete(id);
      report.requests++;
      if (outcome.failedAttempts > 0 || outcome.callerErrors > 0) report.retriedRequests++;
      return outcome;
    };
    let mark = { requests: 0, retried: 0, at: performance.now() };
    /** The phase just ended: its answered requests, and any request that has been waiting longer than a second. */
    /** The requests in flight for longer than `minMs`: the first few named (what, for how long, their answers so far), then how many more. */
    const waitingFor = (now: number, minMs: number): string[] => {
      const waiting = [...inFlight.values()].filter((f) => now - f.since > minMs);
      // open loop, a stall holds back every request due meanwhile: the first few name it
      const stuck = waiting.slice(0, 8).map((f) => `${f.label} for ${((now - f.since) / 1000).toFixed(1)} s (answers ${f.statuses.join(',') || 'none yet'})`);
      if (waiting.length > stuck.length) stuck.push(`${waiting.length - stuck.length} more`);
      return stuck;
    };
    const phase = (event: string) => {
      const now = performance.now();
      const stuck = waitingFor(now, 1000);
      report.phases.push({ event, requests: report.requests - mark.requests, ms: Math.round(now - mark.at) });
      say(`${event}: ${report.requests - mark.requests} requests (${report.retriedRequests - mark.retried} retried) in ${((now - mark.at) / 1000).toFixed(1)} s before it${stuck.length ? `; waiting: ${stuck.join('; ')}` : ''}`);
      mark = { requests: report.requests, retried: report.retriedRequests, at: now };
    };
    /**
     * The n-th request of client w (open loop: scheduled at that time), the m-th of the mix, which
     * repeats every five requests (four on one process): each client's own count back to back, the
     * schedule's in the open loop, so requests due together are of every kind.
     */
    const request = async (w: number, n: number, scheduled?: number, m = n) => {
      const kind = m % (options.cluster ? 5 : 4);
      if (kind === 0 || leads.length === 0) {
        const created = await attempt('lead', 'POST', '/leads', { full_name: `Chaos ${w}-${n}`, first_name: `C${w}x${n}`, email: `c${w}x${n}@rcpt.chaos` }, randomToken(16), scheduled);
        leads.push(...created.ids);
      } else if (kind === 1) {
        await attempt('update', 'PATCH', `/leads/${leads[n % leads.length]}`, { title: `Title ${n}` }, undefined, scheduled);
      } else if (kind === 2 && entities.length) {
        await attempt('reveal', 'POST', '/reveals', { entity_id: entities[(w * 97 + n) % entities.length] }, randomToken(16), scheduled);
      } else if (kind === 4 && Math.floor(m / 5) % 2 === 1) {
        // a search page: on the cluster, read on the standby (SEARCH_READ_DATABASE_URL) until the failover
        await attempt('search', 'GET', `/search?lens=leads&q=${SEARCH_WORDS[n % SEARCH_WORDS.length]}`, undefined, undefined, scheduled);
      } else if (kind === 4) {
        await attempt('read', 'GET', `/leads/${leads[(n * 7) % leads.length]}`, undefined, undefined, scheduled);
      } else {
        await attempt('enroll', 'POST', `/sequences/${sequence}/enrollments`, { lead_ids: [leads[leads.length - 1]] }, randomToken(16), scheduled);
      }
    };
    const worker = async (w: number) => {
      for (let n = 0; !stopped; n++) await request(w, n);
    };
    /**
     * The capacity phase: the run's mix (request()) sent by clients back to back, CAPACITY_CLIENT
     * onwards (leads of their own names), in steps of `stepMs` at `clients`, twice as many, and so
     * on, until a doubling answers less than SATURATED_GAIN more or `maxClients` is reached; its
     * calls are counted apart (tally). Then it waits for the mesh to send what the phase queued
     * (emails, webhook deliveries), so the run's first phase does not carry the phase's backlog.
     * Everything it stored is in the checks.
     */
    const measureCapacity = async (c: CapacityOptions): Promise<CapacityReport> => {
      const own = { statuses: {} as Record<string, number>, caller: { calls: 0, errors: 0, unanswered: 0, duringFailover: 0 }, attempts: { made: 0, failed: 0 } };
      const steps: CapacityStep[] = [];
      let answered = 0;
      let ending = false;
      const clients: Promise<void>[] = [];
      const client = async (w: number) => {
        for (let n = 0; !ending; n++) {
          await request(CAPACITY_CLIENT + w, n);
          answered++;
        }
      };
      currentFault = 'in the capacity phase';
      say(`capacity: the run's mix, clients back to back, ${c.clients} then doubled every ${(c.stepMs / 1000).toFixed(1)} s until a doubling answers less than ${SATURATED_GAIN * 100} % more (at most ${c.maxClients}); the run then offers ${c.share * 100} % of the best step's rate, open loop`);
      for (let target = c.clients; ; target *= 2) {
        const stepLatencies: number[] = [];
        tally = { ...own, latencies: stepLatencies };
        while (clients.length < target) clients.push(client(clients.length));
        const from = answered;
        const started = performance.now();
        await pause(c.stepMs);
        const seconds = (performance.now() - started) / 1000;
        const step = {
          clients: target, answered: answered - from, seconds: Math.round(seconds * 10) / 10, rate: Math.round(((answered - from) / seconds) * 10) / 10,
          p50: Math.round(stepLatencies.length ? percentile(stepLatencies, 50) : 0), p99: p99(stepLatencies),
        };
        steps.push(step);
        say(`capacity: ${step.clients} clients back to back answered ${step.answered} requests in ${step.seconds.toFixed(1)} s: ${step.rate} requests/s, p50 ${step.p50} ms, p99 ${step.p99} ms`);
        if (capacityOf(steps, c).done) break;
      }
      ending = true;
      await Promise.all(clients);
      tally = { statuses: report.statuses, caller: report.clients.caller, attempts: report.clients.attempts };
      const { best, saturated, offered } = capacityOf(steps, c);
      const last = steps[steps.length - 1];
      const settleStarted = performance.now();
      const backlog = async () => (await queuedEmails()) + (await dueEnrollments()) + (await leadEvents()).missing;
      await waitFor('what the capacity phase queued sent', async () => (await backlog()) === 0, CAPACITY_SETTLE_MS, 250).catch(() => undefined);
      const capacity: CapacityReport = {
        steps,
        rate: best.rate,
        saturated,
        share: c.share,
        offered,
        requests: report.requests,
        caller: own.caller,
        attempts: own.attempts,
        statuses: own.statuses,
        p50: best.p50 ?? 0,
        p99: best.p99 ?? 0,
        settleMs: Math.round(performance.now() - settleStarted),
      };
      // the run's figures are its own traffic's
      report.requests = 0;
      report.retriedRequests = 0;
      mark = { requests: 0, retried: 0, at: performance.now() };
      currentFault = 'before the first fault';
      say(`capacity: ${capacity.rate} requests/s (${best.clients} clients${saturated ? `; ${last.clients} answered ${last.rate}/s, less than ${SATURATED_GAIN * 100} % more: saturated` : `; not saturated at ${last.clients} clients, so at least that`}), p50 ${capacity.p50} ms, p99 ${capacity.p99} ms at that step (closed loop: the queue); ${capacity.requests} requests in the phase, ${own.caller.errors} ended in an error to the caller and ${own.caller.unanswered} unanswered (a saturating load: printed, not checked; what they stored is checked); ${capacity.settleMs >= CAPACITY_SETTLE_MS ? `the mesh had not sent all the phase queued after ${CAPACITY_SETTLE_MS / 1000} s (the run began anyway)` : `the mesh sent what the phase queued in ${(capacity.settleMs / 1000).toFixed(1)} s`}`);
      say(`offered: ${capacity.offered} requests/s open loop, ${capacity.share * 100} % of the capacity measured`);
      return capacity;
    };
    const pacing = { answered: 0, lastAnswer: 0, maxSendLagMs: 0, stoppedAt: 0 };
    /**
     * Open loop as wrk2 runs it: request i is due at i / rate seconds after the start whatever
     * became of the ones before it, and belongs to client i mod workers (its (i div workers)-th),
     * which sends it when it is due or, when its previous request is answered late, at once. Its
     * latency counts from when it was due, so a stall counts for every request it held back; the
     * clients bound how many requests are in flight, as a fixed set of connections does, so a
     * backlog waits at the clients instead of running into the mesh's deadlines.
     */
    const pacedClient = async (w: number, rate: number, started: number) => {
      const interval = 1000 / rate;
      for (let n = 0; ; n++) {
        const due = started + (n * options.workers + w) * interval;
        const now = performance.now();
        if (stopped) return;
        if (due > now) await new Promise((r) => setTimeout(r, due - now));
        if (stopped) return;
        pacing.maxSendLagMs = Math.max(pacing.maxSendLagMs, performance.now() - due);
        await request(w, n, due, n * options.workers + w);
        pacing.answered++;
        pacing.lastAnswer = performance.now();
      }
    };
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

    // --- the capacity phase (options.capacity, no rate given): the rate the run offers is a share of it
    let rate = options.rate ?? 0;
    if (options.capacity && rate <= 0) {
      report.capacity = await measureCapacity(options.capacity);
      rate = report.capacity.offered;
    }
    const paced = rate > 0;

    const trafficStarted = performance.now();
    warmUpUntil = trafficStarted + (options.warmUpMs ?? 0);
    const workers = Array.from({ length: options.workers }, (_, w) => (paced ? pacedClient(w, rate, trafficStarted) : worker(w)));

    // --- the faults, one at a time, with traffic before each and after the last
    for (const fault of shape.faults.filter((f) => options.faults?.(f.name) ?? true)) {
      await pause(options.phaseMs);
      phase(`${fault.name}: begins`);
      if (traceFile) trace.push(JSON.stringify({ fault: fault.name, begins: Math.round(performance.now() - traceStart) }));
      currentFault = `during ${fault.name}`;
      faultInProgress = true;
      inFailover = fault.failover === true;
      faultEpoch++;
      if (fault.failover) failoverEpoch = faultEpoch;
      const apiWrite = fault.failover ? firstApiWriteAfterStop(gateways[0], key, failover) : undefined;
      await fault.run();
      if (apiWrite) failover.apiWriteMs = await apiWrite;
      faultInProgress = false;
      inFailover = false;
      faultEpoch++;
      report.kills.push(fault.name);
      if (fault.failover) failedOver = true;
      currentFault = `after ${fault.name}`;
      phase(`${fault.name}: done`);
      if (traceFile) trace.push(JSON.stringify({ fault: fault.name, ends: Math.round(performance.now() - traceStart) }));
    }
    await pause(options.phaseMs);
    phase('traffic stopping');
    stopped = true;
    stoppedAt = performance.now();
    pacing.stoppedAt = stoppedAt;
    // a request that keeps failing after the traffic stopped shows in the output while it does
    const drainWatch = setInterval(() => {
      const now = performance.now();
      say(`${((now - stoppedAt) / 1000).toFixed(0)} s after the traffic stopped, ${inFlight.size} requests still in flight: ${waitingFor(now, 0).join('; ')}`);
    }, 30_000);
    await Promise.all(workers).finally(() => clearInterval(drainWatch));
    if (abandoned.length > 0) {
      // what the services' database sessions were doing when requests were given up: a lock wait,
      // a transaction left open, a pool with every connection busy
      const sessions = await query<{ db: string; app: string; state: string; wait: string; xact_s: string; q: string }>(
        'billing',
        `SELECT datname AS db, application_name AS app, coalesce(state, '') AS state, coalesce(wait_event_type || ':' || wait_event, '') AS wait,
                coalesce(round(extract(epoch FROM now() - xact_start))::text, '') AS xact_s, left(regexp_replace(coalesce(query, ''), '\\s+', ' ', 'g'), 100) AS q
           FROM pg_stat_activity WHERE datname LIKE $1 AND pid <> pg_backend_pid() ORDER BY datname, application_name`,
        [`${prefix}%`],
      ).catch((err: Error) => [{ db: '', app: '', state: `pg_stat_activity not read: ${err.message}`, wait: '', xact_s: '', q: '' }]);
      const busy = sessions.filter((r) => r.state !== 'idle');
      say(`requests given up after the traffic stopped: the run's database sessions, ${sessions.length - busy.length} idle, and these ${busy.length}:`);
      for (const r of busy) say(`  ${r.db} ${r.app} ${r.state}${r.wait ? ` waiting ${r.wait}` : ''}${r.xact_s ? `, transaction ${r.xact_s} s` : ''}: ${r.q}`);
      if (shape.readiness) for (const line of await shape.readiness()) say(`  readiness: ${line}`);
    }
    phase('traffic stopped');
    if (traceFile) writeFileSync(traceFile, trace.join('\n') + '\n');
    say(`traffic stopped: ${report.requests} requests, ${report.retriedRequests} retried after a 5xx, no answer or 409 in progress; answers ${JSON.stringify(report.statuses)}`);
    loopDelay.disable();
    report.clients.p99DuringFaults = p99(during);
    report.clients.p99OutsideFaults = p99(outside);
    if (options.cluster) {
      report.clients.p99GatewayOutsideFaults = p99(outsideUpstream);
      report.clients.chaosLoopDelayP99 = Math.round(loopDelay.percentile(99) / 1e6);
      const seconds = (performance.now() - trafficStarted) / 1000;
      const mean = outside.reduce((sum, ms) => sum + ms, 0) / Math.max(1, outside.length);
      const middle = `outside faults mean ${Math.round(mean)} ms, p50 ${Math.round(outside.length ? percentile(outside, 50) : 0)} ms`;
      // closed loop: as many requests are in flight as there are clients, so the mean time of an
      // answer is the clients over the rate the machine answers at (Little's law)
      if (!paced) say(`${options.workers} clients sending back to back: ${Math.round(report.requests / seconds)} requests/s over ${Math.round(seconds)} s; ${middle}`);
      else say(`open loop, latency from each request's scheduled time: ${middle}`);
      if (warmUp.length) say(`warm-up, the ${warmUp.length} requests due in the first ${options.warmUpMs} ms of traffic (not in the p99s): p99 ${p99(warmUp)} ms, max ${Math.round(Math.max(...warmUp))} ms`);
      say(`outside faults: p99 ${report.clients.p99OutsideFaults} ms at the clients, ${report.clients.p99GatewayOutsideFaults} ms from nginx sending to a gateway to its answer's header; this process's event-loop delay p99 ${report.clients.chaosLoopDelayP99} ms, max ${Math.round(loopDelay.max / 1e6)} ms`);
      say(`outside faults, p99 by request: ${[...outsideByKind].map(([kind, values]) => `${kind} ${p99(values)} ms (${values.length})`).join(', ')}`);
      if (shape.cluster) say(`CPU seconds of the processes alive at the end (since each started): ${cpuByProcess(shape.cluster)}`);
    }
    if (options.cluster) report.clients.failover = { ms: failover.ms, failedAttempts: failoverFailures, detectedMs: failover.detectedMs, promotedMs: failover.promotedMs, apiWriteMs: failover.apiWriteMs };
    let keptUp = true;
    if (paced) {
      const offered = rate;
      const seconds = (pacing.lastAnswer - trafficStarted) / 1000;
      const achieved = seconds > 0 ? pacing.answered / seconds : 0;
      report.pacing = { offered, achieved: Math.round(achieved * 10) / 10, maxSendLagMs: Math.round(pacing.maxSendLagMs) };
      keptUp = achieved >= offered * (1 - RATE_TOLERANCE);
      const due = Math.floor(((pacing.stoppedAt - trafficStarted) * offered) / 1000) + 1;
      say(`open loop, ${options.workers} clients: offered ${offered} requests/s, achieved ${report.pacing.achieved} requests/s (${pacing.answered} answered of the ${due} due before the traffic stopped, in the ${seconds.toFixed(1)} s from the first one's scheduled time to the last answer); a request waited for its client by up to ${report.pacing.maxSendLagMs} ms (counted in the latencies)`);
      if (!keptUp) say(`the mesh did not keep up with the offered rate: ${report.pacing.achieved} of ${offered} requests/s answered (the latency check fails)`);
      if (duringFailover.length) say(`during faults, the ${duringFailover.length} requests that overlapped the database failover: p99 ${p99(duringFailover)} ms, max ${Math.round(Math.max(...duringFailover))} ms (in the p99 during faults); the other faults' p99 ${p99(duringOtherFaults)} ms`);
    }
    const { caller, attempts } = report.clients;
    say(`the client's callers saw: ${caller.calls} calls (${attempts.made} attempts, ${attempts.failed} of them failed and retried by the client), ${caller.errors} ended in an error, ${caller.unanswered} unanswered (${caller.duringFailover} of these during the database failover); p99 ${report.clients.p99DuringFaults} ms during faults, ${report.clients.p99OutsideFaults} ms outside`);
    if (report.clients.failover && report.kills.some((k) => k.startsWith('database failover'))) {
      const f = report.clients.failover;
      const watch = shape.cluster?.pg.failoverWatch?.settings;
      say(`database failover: from the primary's stop, writes accepted after ${f.ms} ms (the watcher counted it lost after ${f.detectedMs} ms, ${watch ? `${watch.failureThreshold} probes failed in a row, one every ${watch.probeIntervalMs} ms` : 'its probes'}, and promoted the standby after ${f.promotedMs} ms); the first keyed POST /leads sent through the API after the stop answered 201 after ${f.apiWriteMs} ms; ${f.failedAttempts} attempts failed meanwhile (the client retried each; errors that still reached a caller are counted above)`);
    }

    // --- what must hold
    const checked = (name: string) => options.checks?.(name) ?? true;
    const check = (name: string, ok: boolean, detail: string) => {
      if (!checked(name)) {
        say(`(measured, not checked in this run) ${name}: ${detail}`);
        return;
      }
      report.checks.push({ name, ok, detail });
      say(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`);
    };

    const keyed = [...outcomes.values()];
    const diverged = keyed.filter((o) => o.ids.size > 1).length;
    const retried = keyed.filter((o) => o.failedAttempts > 0);
    check(CHAOS_CHECKS.converged, diverged === 0 && keyed.every((o) => o.status !== 0) && abandoned.length === 0,
      `${keyed.length} keyed POSTs, ${retried.length} retried after a 5xx, no answer or 409 in progress, ${diverged} with more than one result` +
        (abandoned.length ? `; ${abandoned.length} requests still failing ${DRAIN_WAIT_MS / 1000} s after the traffic stopped, given up: ${abandoned.slice(0, 5).join('; ')}` : ''));
    // the leads the traffic created (reveals add leads of their own, on the demo domains)
    const duplicates = await query<{ email: string }>('crm', `SELECT email FROM leads WHERE workspace_id = $1 AND email LIKE '%@rcpt.chaos' GROUP BY email HAVING count(*) > 1`, [workspace.id]);
    const createdKeys = [...outcomes.entries()].filter(([k, o]) => k.startsWith('lead:') && o.ids.size === 1).length;
    const [{ n: leadRows }] = await query<{ n: number }>('crm', `SELECT count(*)::int AS n FROM leads WHERE workspace_id = $1 AND email LIKE '%@rcpt.chaos'`, [workspace.id]);
    check(CHAOS_CHECKS.oneLead, duplicates.length === 0 && leadRows === createdKeys, `${createdKeys} creates answered, ${leadRows} leads stored, ${duplicates.length} emails stored twice`);

    let events = await leadEvents();
    await waitFor('every lead event delivered', async () => (events = await leadEvents()).missing === 0, EVENTS_WAIT_MS, 500).catch(() => undefined);
    check(CHAOS_CHECKS.events, events.missing === 0, `${events.outbox} lead.* events in crm's outbox, ${events.outbox - events.missing} delivered to the endpoint (${receiver.received.length} deliveries)`);

    const ledgers = await query<{ workspace_id: string; balance: number; ledger: number }>(
      'billing',
      `SELECT a.workspace_id, a.plan_balance + a.pack_balance AS balance, (SELECT coalesce(sum(amount), 0) FROM ledger_entries l WHERE l.workspace_id = a.workspace_id)::int AS ledger FROM credit_accounts a`,
    );
    const off = ledgers.filter((l) => l.balance !== l.ledger);
    check(CHAOS_CHECKS.ledgers, off.length === 0, `${ledgers.length} accounts, ${off.length} off${off.length ? `: ${JSON.stringify(off)}` : ''}`);

    await waitFor('emails settled', async () => (await queuedEmails()) === 0, EMAILS_WAIT_MS, 500).catch(() => undefined);
    const byRecipient = new Map<string, Set<string>>();
    for (const mail of sink.mails) byRecipient.set(mail.to, (byRecipient.get(mail.to) ?? new Set()).add(mail.messageId));
    const twoEmails = [...byRecipient.values()].filter((ids) => ids.size > 1).length;
    const resent = sink.mails.length - [...byRecipient.values()].reduce((sum, ids) => sum + ids.size, 0);
    // each sequences kill: at most the hand-offs it had in flight go out again, same Message-ID
    const bound = SEND_CONCURRENCY * report.kills.filter((k) => k.startsWith('sequences')).length;
    check(CHAOS_CHECKS.emails, twoEmails === 0 && resent <= bound,
      `${sink.mails.length} emails to ${byRecipient.size} recipients, ${twoEmails} recipients with two different emails, ${resent} re-sent with their Message-ID (bound ${bound}: the hand-offs in flight at the sequences kills)`);
    if (options.cluster && shape.cluster) {
      const cluster = shape.cluster;
      check(CHAOS_CHECKS.noErrors, caller.errors === 0 && caller.unanswered === 0,
        `${caller.calls} calls of the client (${attempts.made} attempts, ${attempts.failed} failed and retried), ${caller.errors} ended in an error to the caller, ${caller.unanswered} unanswered (${caller.duringFailover} during the database failover)`);
      check(CHAOS_CHECKS.latency, keptUp && report.clients.p99DuringFaults < 1000 && report.clients.p99OutsideFaults < 100,
        `p99 ${report.clients.p99DuringFaults} ms during faults, ${report.clients.p99OutsideFaults} ms outside${report.pacing
          ? `, open loop from the scheduled times at ${report.pacing.offered} requests/s offered, ${report.pacing.achieved} achieved${keptUp ? '' : ' (did not keep up)'}`
          : `, closed loop (${options.workers} clients back to back)`}`);
      const waited = keyed.filter((o) => o.inProgressMs > 0);
      const longest = Math.max(0, ...waited.map((o) => o.inProgressMs));
      check(CHAOS_CHECKS.takeover, longest < 5000,
        `${waited.length} keyed POSTs answered 409 "still in progress" first (a gateway died holding their claim), the longest until its answer ${(longest / 1000).toFixed(1)} s`);
      if (report.kills.some((k) => k.startsWith('database failover'))) {
        const before = standbyXactsBefore ?? 0;
        const onStandby = (shape.standbySearchXacts?.atFailover ?? 0) - before;
        check(CHAOS_CHECKS.replicaReads, onStandby > 0 && searchAfterFailover.answered > 0 && searchAfterFailover.failed === 0,
          `${onStandby} transactions in search's database on the standby before the failover; after it ${searchAfterFailover.answered} search pages answered, ${searchAfterFailover.failed} not`);
      }

      // straight to each gateway, not through nginx: which one answers is chosen here
      const [first, second] = cluster.gatewayUrls;
      if (checked(CHAOS_CHECKS.replay)) {
        const seen: string[] = [];
        let ok = true;
        for (const [from, to, names] of [[first, second, 'gateway-1 then gateway-2'], [second, first, 'gateway-2 then gateway-1']]) {
          const idem = randomToken(16);
          const body = { full_name: `Replay ${idem}`, email: `replay-${idem.toLowerCase()}@replay.chaos` };
          const a = await direct(from, 'POST', '/leads', key, body, idem);
          const b = await direct(to, 'POST', '/leads', key, body, idem);
          const same = a.status === 201 && b.status === a.status && b.text === a.text
            && a.headers.get('idempotent-replayed') === null && b.headers.get('idempotent-replayed') === 'true';
          ok &&= same;
          seen.push(`${names}: ${a.status}, then ${b.status} ${b.text === a.text ? 'same body' : 'another body'}, Idempotent-Replayed ${b.headers.get('idempotent-replayed') ?? 'absent'}`);
        }
        check(CHAOS_CHECKS.replay, ok, seen.join('; '));
      }
      if (checked(CHAOS_CHECKS.rateLimit)) {
        // the traffic ran with the limit raised; the check needs the spec's own, on both gateways
        for (const app of cluster.apps.filter((a) => a.name === 'gateway')) {
          await cluster.stopApp(app.id);
          await cluster.startApp(app.id, { RATE_LIMIT_PER_MINUTE: undefined });
        }
        say(`both gateways restarted with the default rate limit (RATE_LIMIT_PER_MINUTE unset) for the rate-limit check`);
        const limited = await admin('workspace:create', '--name', 'chaos rate limit');
        const limitedKey = (await admin('key:create', '--workspace', limited.id, '--mode', 'live')).key as string;
        // a fixed one-minute window: the requests must not straddle its end
        let opening = await direct(first, 'GET', '/leads', limitedKey);
        const reset = Number(opening.headers.get('ratelimit-reset'));
        if (reset < 20) {
          await pause(reset * 1000 + 300);
          opening = await direct(first, 'GET', '/leads', limitedKey);
        }
        const windowLeft = Number(opening.headers.get('ratelimit-reset'));
        const started = performance.now();
        const statuses: number[] = [opening.status];
        const limits = new Set([opening.headers.get('ratelimit-limit')]);
        for (let sent = 1; sent < DEFAULT_RATE_LIMIT; sent += 20) {
          const batch = await Promise.all(Array.from({ length: Math.min(20, DEFAULT_RATE_LIMIT - sent) }, (_, i) =>
            direct((sent + i) % 2 ? second : first, 'GET', '/leads', limitedKey)));
          for (const res of batch) {
            statuses.push(res.status);
            limits.add(res.headers.get('ratelimit-limit'));
          }
        }
        const over = [await direct(first, 'GET', '/leads', limitedKey), await direct(second, 'GET', '/leads', limitedKey)];
        const inWindow = (performance.now() - started) / 1000 < windowLeft - 1;
        const admitted = statuses.filter((st) => st === 200).length;
        check(CHAOS_CHECKS.rateLimit,
          inWindow && admitted === DEFAULT_RATE_LIMIT && over.every((res) => res.status === 429 && res.headers.get('retry-after') !== null) && [...limits].join() === String(DEFAULT_RATE_LIMIT),
          `a key of its own at the default limit (RateLimit-Limit ${[...limits].join('/')}): ${admitted} of ${statuses.length} requests over both gateways admitted, the next on gateway-1 ${over[0].status}, on gateway-2 ${over[1].status}${inWindow ? '' : ' (the window ended meanwhile: not conclusive)'}`);
      }
    }
    report.goals = goalVerdicts(report, keptUp);
    const load = report.capacity
      ? `open loop at ${report.capacity.offered} requests/s, ${report.capacity.share * 100} % of the ${report.capacity.rate} requests/s measured`
      : report.pacing ? `open loop at ${report.pacing.offered} requests/s (given; capacity not measured)` : `closed loop, ${options.workers} clients`;
    say(`goals (issue 35), ${load}:`);
    for (const goal of report.goals) say(`  ${goal.met ? 'MET    ' : 'NOT MET'} ${goal.goal}: ${goal.detail}`);
    say(`verdict: ${report.goals.every((g) => g.met) ? 'PASS' : 'FAIL'}`);
    return report;

  } finally {
    await shape?.close();
    await receiver.close();
    await sink.close();
    await sandbox?.close();
    cert.dispose();
    // the PostgreSQL pair's logs, kept beside the processes' (slow statements, lock waits, checkpoints)
    for (const role of ['primary', 'standby']) {
      const log = join(pgDir(dir), role, 'server.log');
      if (logDir && existsSync(log)) copyFileSync(log, join(logDir, `postgres-${role}.log`));
    }
    rmSync(dir, { recursive: true, force: true });
    if (options.cluster) rmSync(pgDir(dir), { recursive: true, force: true });
    const pg = new Client({ connectionString: PG });
    await pg.connect();
    const { rows } = await pg.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${prefix}%`]);
    for (const row of rows) await pg.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    await pg.end();
  }
}

/** A command-line option's value (`--name value` or `--name=value`), else the environment variable's. */
function option(name: string, envName: string): string | undefined {
  const at = process.argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (at < 0) return process.env[envName];
  return process.argv[at].startsWith(`${name}=`) ? process.argv[at].slice(name.length + 1) : process.argv[at + 1];
}

if (require.main === module) {
  const say = (line: string) => process.stdout.write(`[chaos] ${line}\n`);
  const cluster = process.argv.includes('--cluster');
  // --rate <requests/s> (or --rate=<n>, or CHAOS_RATE): open loop at that total rate; --rate 0 or
  // --closed-loop: clients back to back. Default: the cluster run measures its capacity first and
  // offers half of it open loop (DEFAULT_CAPACITY), the single-process run closed loop.
  const given = option('--rate', 'CHAOS_RATE');
  const rate = process.argv.includes('--closed-loop') ? 0 : given !== undefined && given !== '' ? Number(given) : undefined;
  if (rate !== undefined && (!Number.isFinite(rate) || rate < 0)) {
    say(`--rate (CHAOS_RATE) must be a number of requests per second, 0 for closed loop: got ${given}`);
    process.exit(2);
  }
  const capacity: CapacityOptions | undefined = cluster && rate === undefined ? {
    ...DEFAULT_CAPACITY,
    clients: Number(process.env.CHAOS_CAPACITY_CLIENTS || DEFAULT_CAPACITY.clients),
    maxClients: Number(process.env.CHAOS_CAPACITY_MAX_CLIENTS || DEFAULT_CAPACITY.maxClients),
    stepMs: Number(process.env.CHAOS_CAPACITY_STEP_MS || DEFAULT_CAPACITY.stepMs),
  } : undefined;
  // open loop: clients enough that one held by a slow answer rarely holds back the next request due
  const open = (rate ?? 0) > 0 || capacity !== undefined;
  const workers = Number(process.env.CHAOS_WORKERS || (open ? PACED_CLIENTS : cluster ? 8 : 6));
  say(capacity ? `open loop at ${capacity.share * 100} % of the capacity measured first, over ${workers} clients, latency from each request's scheduled time`
    : open ? `open loop: ${rate} requests/s in all over ${workers} clients, latency from each request's scheduled time (capacity not measured: --rate given)`
    : `closed loop: ${workers} clients back to back`);
  // CHAOS_REPORT=<file>: the run's report (ChaosReport) as JSON
  const reportFile = process.env.CHAOS_REPORT;
  // --faults <regex> (or CHAOS_FAULTS): only the faults whose name matches, e.g. `--faults failover`
  const pattern = option('--faults', 'CHAOS_FAULTS');
  const only = pattern ? new RegExp(pattern, 'i') : undefined;
  if (only) say(`faults: only those matching /${pattern}/i (a partial run: its checks still run, over less)`);
  runChaos({ phaseMs: Number(process.env.CHAOS_PHASE_MS || 8000), warmUpMs: Number(process.env.CHAOS_WARMUP_MS ?? 3000), workers, rate, capacity, say, cluster, faults: only ? (name) => only.test(name) : undefined }).then(
    (report) => {
      if (reportFile) writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
      process.exit(report.checks.every((c) => c.ok) ? 0 : 1);
    },
    (err: Error) => {
      say(`failed: ${err.stack ?? err.message}`);
      process.exit(1);
    },
  );
}
