import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseUrlFor } from '@app/platform/config';
import { migrateService } from '../migrate';
import { asPostgres, ownedByPostgres, PgPair, pgCtl, postgresBinDir, sqlOnce } from '../mesh/pg-pair';
import { freePort, waitFor } from '../mesh/processes';
import { Check, checkRestore, DatabaseState, DrillEvidence } from './checks';
import { DrillWriter, readState, WorkloadSize } from './workload';

/**
 * The restore drill (`npm run -s restore-drill`): what a point-in-time restore of production
 * gives back, measured on this machine. A PostgreSQL pair as the cluster run starts it (PgPair:
 * WAL archived, a base backup at start) holds search's and billing's databases, migrated by their
 * own migrations and written through the services' own code (workload.ts); a second base backup
 * is taken, as a ScheduledBackup takes one, and more is written; writes stop, the state is read
 * and a restore point made; more is written after it and archived. The pair is stopped and a
 * fresh server restored from the second base backup and the archive to the point
 * (recovery_target_name, or recovery_target_time with --target time), then checked
 * (checks.ts): the ledgers sum to the balances, which are those at the point, entities_count
 * counts the entities, which are those at the point, and nothing written after the point is
 * there. Prints a JSON report with the restore's time; exits 1 when a check fails.
 */

export interface DrillOptions {
  size: WorkloadSize;
  target: 'name' | 'time';
  /** Where the servers' directories go (made anew; a temporary directory when unset). */
  dir?: string;
  /** Keeps the directories (and the restored server's log) after the run. */
  keep?: boolean;
  say?: (line: string) => void;
}

export interface RestoreTiming {
  /** The base backup unpacked into the new server's directory. */
  unpack_ms: number;
  /** From the server's start to its promotion: the archived WAL replayed up to the target. */
  recovery_ms: number;
  total_ms: number;
}

export interface DrillReport {
  ok: boolean;
  at: string;
  target: DrillEvidence['target'];
  data: {
    size: WorkloadSize;
    accounts: number;
    ledger_entries: number;
    entities: number;
    billing_db_bytes: number;
    search_db_bytes: number;
    base_backup_bytes: number;
    /** WAL segments archived from the base backup on, and how many the restore read. */
    wal_segments_archived: number;
    wal_segments_restored: number;
  };
  restore: RestoreTiming;
  checks: Check[];
  dir?: string;
}

/** A source ready to be restored: its archive, the base backup to start from, and the evidence read on it. */
export interface PreparedSource {
  archiveDir: string;
  baseBackupDir: string;
  /** The point to restore to, as asked: one of `points`. */
  target: DrillEvidence['target'];
  /** The restore point by its name, and the time it was made. */
  points: { name: DrillEvidence['target']; time: DrillEvidence['target'] };
  atPoint: DatabaseState;
  sourceAfter: DatabaseState;
  sizes: { billing_db_bytes: number; search_db_bytes: number };
}

const SERVICES = { billing: 'billing', search: 'search' } as const;
const urlsOn = (serverUrl: string) => ({
  billing: databaseUrlFor(SERVICES.billing, { DATABASE_URL: serverUrl }),
  search: databaseUrlFor(SERVICES.search, { DATABASE_URL: serverUrl }),
});

/** One statement on a server the drill started (a restore may stop it under the query: see sqlOnce). */
const sql = <T>(url: string, text: string, values: unknown[] = []) => sqlOnce<T>(url, text, values, 5000);

/** Starts the pair in `dir`, writes, backs up, makes the point, writes on, archives; stops the pair. */
export async function prepareSource(dir: string, size: WorkloadSize, target: 'name' | 'time', say: (line: string) => void = () => undefined): Promise<PreparedSource> {
  const pair = await PgPair.start(join(dir, 'source'), { primary: await freePort(), standby: await freePort(), rw: await freePort(), ro: await freePort() });
  try {
    const urls = urlsOn(pair.rwUrl);
    for (const service of Object.values(SERVICES)) await migrateService(service, { env: { DATABASE_URL: pair.rwUrl } });
    const writer = await DrillWriter.open(urls);
    let atPoint: DatabaseState;
    let points: PreparedSource['points'];
    let baseBackupDir: string;
    try {
      say('writing before the base backup');
      await writer.write('before-backup', size);
      baseBackupDir = await pair.baseBackup();
      say('writing after the base backup');
      await writer.write('after-backup', size);
      atPoint = await readState(urls);
      const name = `drill-${Date.now()}`;
      const [made] = await sql<{ lsn: string; time: string }>(pair.rwUrl, `SELECT pg_create_restore_point($1)::text AS lsn, to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00' AS time`, [name]);
      points = { name: { kind: 'name', name }, time: { kind: 'time', time: made.time } };
      say(`restore point ${name} at ${made.lsn}; writing after it`);
      await writer.write('after-point', size);
    } finally {
      await writer.close();
    }
    const sourceAfter = await readState(urls);
    // the segment holding the last write is closed and archived, so the archive reaches past the point
    const [{ segment }] = await sql<{ segment: string }>(pair.rwUrl, 'SELECT pg_walfile_name(pg_switch_wal()) AS segment');
    await waitFor('the last WAL segment archived', async () => existsSync(join(pair.archiveDir, segment)), 60_000, 100);
    const [sizes] = await sql<{ billing_db_bytes: string; search_db_bytes: string }>(pair.rwUrl,
      `SELECT pg_database_size($1) AS billing_db_bytes, pg_database_size($2) AS search_db_bytes`,
      [new URL(urls.billing).pathname.slice(1), new URL(urls.search).pathname.slice(1)]);
    return {
      archiveDir: pair.archiveDir, baseBackupDir, target: points[target], points, atPoint, sourceAfter,
      sizes: { billing_db_bytes: Number(sizes.billing_db_bytes), search_db_bytes: Number(sizes.search_db_bytes) },
    };
  } finally {
    await pair.stop();
  }
}

/** The recovery settings of a restore to `target` (or to the end of the archive when `end`) from `archiveDir`. */
export function recoverySettings(archiveDir: string, target: DrillEvidence['target'] | 'end'): string[] {
  const settings = [`restore_command = 'cp ${archiveDir}/%f %p'`];
  if (target === 'end') return settings;
  settings.push(target.kind === 'name' ? `recovery_target_name = '${target.name}'` : `recovery_target_time = '${target.time}'`);
  return [...settings, "recovery_target_action = 'promote'"];
}

/** How long a restore may replay before the drill gives up on it. */
const RESTORE_TIMEOUT_MS = 30 * 60_000;

export interface Restored {
  url: string;
  dataDir: string;
  timing: RestoreTiming;
  log: string;
  segmentsRestored: number;
  stop(): void;
}

/**
 * A fresh server in `dataDir` (made anew) from the base backup and the archive, recovered to
 * `target` and promoted; resolves once it takes writes. Its settings are the source's, but for its
 * port and socket, no archiving of its own (the source's archive is read, never written) and no
 * synchronous standby to wait for.
 */
export async function restore(source: Pick<PreparedSource, 'archiveDir' | 'baseBackupDir'>, dataDir: string, target: DrillEvidence['target'] | 'end'): Promise<Restored> {
  const bin = postgresBinDir();
  const port = await freePort();
  const started = Date.now();
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  chmodSync(dataDir, 0o700);
  ownedByPostgres(dataDir);
  asPostgres('tar', ['-xf', join(source.baseBackupDir, 'base.tar'), '-C', dataDir]);
  const unpacked = Date.now();
  // the source's log, which its data directory held when the backup was taken
  rmSync(join(dataDir, 'server.log'), { force: true });
  appendFileSync(join(dataDir, 'postgresql.auto.conf'), [
    `port = ${port}`,
    `unix_socket_directories = '${dataDir}'`,
    'archive_mode = off',
    "synchronous_standby_names = ''",
    ...recoverySettings(source.archiveDir, target),
    '',
  ].join('\n'));
  writeFileSync(join(dataDir, 'recovery.signal'), '');
  ownedByPostgres(join(dataDir, 'recovery.signal'));
  const stop = () => pgCtl(bin, dataDir, 'stop', ['-m', 'fast']);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const logTail = () => readFileSync(join(dataDir, 'server.log'), 'utf8').split('\n').slice(-20).join('\n');
  try {
    pgCtl(bin, dataDir, 'start');
  } catch (err) {
    // a target the archive does not reach can stop the server before pg_ctl's wait sees it up
    // (a quiet machine replays a small archive that fast): the same failure as one seen below
    if (!existsSync(join(dataDir, 'postmaster.pid')) && existsSync(join(dataDir, 'server.log'))) {
      throw new Error(`the restored server stopped during recovery; its log:\n${logTail()}`);
    }
    throw err;
  }
  // until promoted; a server that stops meanwhile (a target the archive does not reach) fails at once
  for (const deadline = Date.now() + RESTORE_TIMEOUT_MS; ; await new Promise((r) => setTimeout(r, 50))) {
    if (!existsSync(join(dataDir, 'postmaster.pid'))) throw new Error(`the restored server stopped during recovery; its log:\n${logTail()}`);
    const inRecovery = await sql<{ r: boolean }>(url, 'SELECT pg_is_in_recovery() AS r').then((rows) => rows[0]?.r, () => true);
    if (!inRecovery) break;
    if (Date.now() > deadline) {
      stop();
      throw new Error(`the restored server not promoted within ${RESTORE_TIMEOUT_MS} ms; its log:\n${logTail()}`);
    }
  }
  const promoted = Date.now();
  const log = readFileSync(join(dataDir, 'server.log'), 'utf8');
  return {
    url,
    dataDir,
    timing: { unpack_ms: unpacked - started, recovery_ms: promoted - unpacked, total_ms: promoted - started },
    log,
    segmentsRestored: (log.match(/restored log file "[0-9A-F]{24}" from archive/g) ?? []).length,
    stop,
  };
}

export interface RestoreOutcome {
  timing: RestoreTiming;
  segmentsRestored: number;
  checks: Check[];
}

/**
 * Restores `source` on a fresh server in `dataDir` to `restoreTo` (one of its points, or the end
 * of the archive) and checks what the server holds against the state at the point.
 */
export async function restoreAndCheck(source: PreparedSource, dataDir: string, restoreTo: DrillEvidence['target'] | 'end'): Promise<RestoreOutcome> {
  const restored = await restore(source, dataDir, restoreTo);
  let state: DatabaseState;
  try {
    state = await readState(urlsOn(restored.url));
  } finally {
    restored.stop();
  }
  const target = restoreTo === 'end' ? source.target : restoreTo;
  const checks = checkRestore({ atPoint: source.atPoint, sourceAfter: source.sourceAfter, restored: state, restoredLog: restored.log, target });
  return { timing: restored.timing, segmentsRestored: restored.segmentsRestored, checks };
}

export async function runRestoreDrill(options: DrillOptions): Promise<DrillReport> {
  const say = options.say ?? (() => undefined);
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'restore-drill-'));
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  try {
    const source = await prepareSource(dir, options.size, options.target, say);
    say('restoring to the point on a fresh server');
    const outcome = await restoreAndCheck(source, join(dir, 'restored'), source.target);
    const backupStart = backupStartSegment(source.baseBackupDir);
    const archived = readdirSync(source.archiveDir).filter((f) => /^[0-9A-F]{24}$/.test(f) && f.slice(8) >= backupStart.slice(8));
    return {
      ok: outcome.checks.every((c) => c.ok),
      at: new Date().toISOString(),
      target: source.target,
      data: {
        size: options.size,
        accounts: source.atPoint.billing.accounts.length,
        ledger_entries: source.atPoint.billing.entries,
        entities: source.atPoint.search.entities,
        ...source.sizes,
        base_backup_bytes: statSync(join(source.baseBackupDir, 'base.tar')).size,
        wal_segments_archived: archived.length,
        wal_segments_restored: outcome.segmentsRestored,
      },
      restore: outcome.timing,
      checks: outcome.checks,
      ...(options.keep ? { dir } : {}),
    };
  } finally {
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
  }
}

/** The WAL segment (16 MB, the default) a base backup starts in, from its backup_manifest's WAL range. */
export function backupStartSegment(baseBackupDir: string): string {
  const manifest = JSON.parse(readFileSync(join(baseBackupDir, 'backup_manifest'), 'utf8')) as { 'WAL-Ranges': { Timeline: number; 'Start-LSN': string }[] };
  const [{ Timeline: timeline, 'Start-LSN': lsn }] = manifest['WAL-Ranges'];
  const [high, low] = lsn.split('/').map((part) => parseInt(part, 16));
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
  return `${hex(timeline)}${hex(high)}${hex(Math.floor(low / 0x1000000))}`;
}

const USAGE = `usage: npm run -s restore-drill -- [--accounts <n>] [--consumes <n>] [--entities <n>] [--target name|time] [--dir <dir>] [--keep]
  --accounts  credit accounts opened in each of the two phases before the point (default 500)
  --consumes  consumes per account in each phase, a tenth of them refunded (default 10)
  --entities  search entities inserted in each of the two phases before the point (default 10000)
  --target    restore to the restore point by its name (default) or to the time it was made
  --dir       where the servers' directories go (default: a new temporary directory)
  --keep      keep them after the run
Prints a JSON report (checks, restore time, data size); exits 1 when a check fails.
`;

export function parseDrillArgs(argv: string[]): DrillOptions | { error: string } {
  const size: WorkloadSize = { accounts: 500, consumes: 10, entities: 10_000 };
  const options: DrillOptions = { size, target: 'name' };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    const value = () => inline ?? argv[++i];
    if (flag === '--keep') options.keep = true;
    else if (flag === '--dir') options.dir = value();
    else if (flag === '--target') {
      const target = value();
      if (target !== 'name' && target !== 'time') return { error: `--target: "${target}" is not name or time` };
      options.target = target;
    } else if (flag === '--accounts' || flag === '--consumes' || flag === '--entities') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1 || n > 10_000_000) return { error: `${flag}: a positive integer` };
      size[flag.slice(2) as keyof WorkloadSize] = n;
    } else return { error: `unknown argument "${argv[i]}"` };
  }
  return options;
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  const options = parseDrillArgs(argv);
  if ('error' in options) {
    process.stderr.write(`restore-drill: ${options.error}\n${USAGE}`);
    process.exit(2);
  }
  try {
    const report = await runRestoreDrill({ ...options, say: (line) => process.stderr.write(`[restore-drill] ${line}\n`) });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    process.exitCode = report.ok ? 0 : 1;
  } catch (err) {
    process.stderr.write(`restore-drill: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  }
}

if (require.main === module) void main(process.argv.slice(2));
