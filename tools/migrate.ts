import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_NAMES, ServiceName } from '@app/contracts';
import { databaseUrlFor, eventsStreamSettings, natsUrl } from '@app/platform/config';
import { MigrationClass } from '@app/platform/data-source';
import { provisionEventsStreamAt, ProvisionOutcome } from '@app/platform/jetstream';
import { LOCAL_NATS_IDENTITY_DIR, LOCAL_NATS_URL_FILE, natsConnectOptions, readNatsSettings } from '@app/platform/nats-auth';
import { revertLastMigration, runMigrations, showMigrations } from '@app/platform/migrations';
import { rootLogger } from '@app/platform/logger';

/**
 * One service's migrations: `npm run migrate -- <service> [run|show|revert]`
 * (`node dist/tools/migrate.js <service> [verb]`; run when no verb is given). And the bus's:
 * `npm run migrate -- bus` provisions the JetStream EVENTS stream as the operator's NATS identity,
 * the one identity allowed to create or change a stream (no service may): creates it, or brings
 * it back to its declared subjects, age and duplicate window and to EVENTS_STREAM_REPLICAS and
 * EVENTS_STREAM_MAX_BYTES. Run before the services start: by `npm start`, the tests, the compose
 * `migrate-bus` step and the Kubernetes gateway-migrate Job (its first container). Services wait
 * for the stream until it exists.
 * - run: creates the database when missing, applies the migrations not yet applied and exits 0.
 *   Run by the compose `migrate-<service>` containers and the Kubernetes `<service>-migrate` Jobs
 *   before the new version of the service starts.
 * - show: prints every migration of the service with `[X]` (applied) or `[ ]` (pending); exits 0,
 *   or 3 when some are pending (scripts can wait on it).
 * - revert: undoes the newest applied migration with its `down`.
 * Every verb runs under the advisory lock the services take at boot. Reads the same variables as
 * the service (`<SERVICE>_DATABASE_URL`, else `DATABASE_URL` + `DB_PREFIX`). Any failure exits 1.
 *
 * Each service's migrations load when asked for: a service's image holds its own migrations
 * and not the other services' (tools/image/deps.ts follows only the required one).
 */
const LOADERS: Record<ServiceName, () => MigrationClass[]> = {
  gateway: () => (require('../apps/gateway/src/migrations') as typeof import('../apps/gateway/src/migrations')).GATEWAY_MIGRATIONS,
  search: () => (require('../apps/search/src/migrations') as typeof import('../apps/search/src/migrations')).MIGRATIONS,
  crm: () => (require('../apps/crm/src/migrations') as typeof import('../apps/crm/src/migrations')).CRM_MIGRATIONS,
  sequences: () => (require('../apps/sequences/src/migrations') as typeof import('../apps/sequences/src/migrations')).MIGRATIONS,
  billing: () => (require('../apps/billing/src/migrations') as typeof import('../apps/billing/src/migrations')).MIGRATIONS,
  webhooks: () => (require('../apps/webhooks/src/migrations') as typeof import('../apps/webhooks/src/migrations')).MIGRATIONS,
};
export const SERVICE_MIGRATIONS = Object.defineProperties(
  {},
  Object.fromEntries(SERVICE_NAMES.map((service) => [service, { enumerable: true, get: LOADERS[service] }])),
) as Record<ServiceName, MigrationClass[]>;

export const MIGRATE_VERBS = ['run', 'show', 'revert'] as const;
export type MigrateVerb = (typeof MIGRATE_VERBS)[number];

/** Errors worth waiting out: the server is not up yet, or is starting or recovering. */
const TRANSIENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', '57P03', '53300']);

export interface MigrateOptions {
  env?: NodeJS.ProcessEnv;
  /** How long to keep retrying while the database server cannot be reached. */
  waitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

function serviceNamed(service: string): ServiceName {
  if (!(SERVICE_NAMES as readonly string[]).includes(service)) {
    throw new Error(`unknown service "${service}"; one of: ${SERVICE_NAMES.join(', ')}`);
  }
  return service as ServiceName;
}

/** Retries `work` while the database server cannot be reached, up to the wait. */
async function whenReachable<T>(work: () => Promise<T>, env: NodeJS.ProcessEnv, options: MigrateOptions): Promise<T> {
  const waitMs = options.waitMs ?? Number(env.MIGRATE_WAIT_MS || 60_000);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await work();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (!code || !TRANSIENT.has(code) || Date.now() >= deadline) throw err;
      await sleep(1000);
    }
  }
}

/**
 * Runs one verb of the migrator on the service's database, retrying while the server cannot be
 * reached. The service's migrations load before the wait starts.
 */
async function onServiceDatabase<T>(service: string, options: MigrateOptions, verb: (databaseUrl: string, migrations: MigrationClass[]) => Promise<T>): Promise<T> {
  const name = serviceNamed(service);
  const env = options.env ?? process.env;
  const migrations = SERVICE_MIGRATIONS[name];
  return whenReachable(() => verb(databaseUrlFor(name, env), migrations), env, options);
}

/**
 * `run`: the names of the migrations applied, oldest first. For search, SEARCH_INDEX is checked
 * first, so that a value search would refuse at its start (the removed `rum` and `bands` among
 * them) migrates nothing.
 */
export function migrateService(service: string, options: MigrateOptions = {}): Promise<string[]> {
  const env = options.env ?? process.env;
  return onServiceDatabase(service, options, async (databaseUrl, migrations) => {
    if (service === 'search') {
      // through search's migrations module, as the table above: only search's image carries it (tools/image/deps.ts)
      (require('../apps/search/src/migrations') as typeof import('../apps/search/src/migrations')).searchIndexOf(env.SEARCH_INDEX);
    }
    return runMigrations(databaseUrl, migrations);
  });
}

/** `show`: every migration of the service and whether it is applied. */
export function showServiceMigrations(service: string, options: MigrateOptions = {}) {
  return onServiceDatabase(service, options, showMigrations);
}

/** `revert`: the name of the migration undone, or null when none was applied. */
export function revertServiceMigration(service: string, options: MigrateOptions = {}): Promise<string | null> {
  return onServiceDatabase(service, options, revertLastMigration);
}

/** The target of `migrate.js bus`: the bus's streams rather than a service's database. */
export const BUS_TARGET = 'bus';

/**
 * The operator's NATS identity and bus: NATS_NKEY_SEED_FILE or NATS_NKEY_SEED and NATS_URL; where
 * unset, the identity and the bus `npm start` made for this checkout (as the admin CLI finds them).
 */
function operatorSettings(env: NodeJS.ProcessEnv) {
  const seed = join(process.cwd(), LOCAL_NATS_IDENTITY_DIR, 'operator.nk');
  const urlFile = join(process.cwd(), LOCAL_NATS_URL_FILE);
  const local = !env.NATS_NKEY_SEED && !env.NATS_NKEY_SEED_FILE && existsSync(seed);
  const url = natsUrl({ NATS_URL: env.NATS_URL || (existsSync(urlFile) ? readFileSync(urlFile, 'utf8').trim() : undefined) });
  return readNatsSettings('operator', url, local ? { ...env, NATS_NKEY_SEED_FILE: seed } : env);
}

/** `bus`: provisions the EVENTS stream as the operator, waiting up to MIGRATE_WAIT_MS for NATS to answer. */
export function provisionBus(options: MigrateOptions = {}): Promise<ProvisionOutcome> {
  const env = options.env ?? process.env;
  const settings = operatorSettings(env);
  return provisionEventsStreamAt(natsConnectOptions(settings, 'migrate-bus'), eventsStreamSettings(env), { waitMs: options.waitMs ?? Number(env.MIGRATE_WAIT_MS || 60_000) });
}

const USAGE = `usage: npm run migrate -- <${SERVICE_NAMES.join('|')}> [${MIGRATE_VERBS.join('|')}]
       npm run migrate -- ${BUS_TARGET}
  run     apply the migrations not yet applied (the default)
  show    list every migration, [X] applied, [ ] pending; exit 3 when some are pending
  revert  undo the newest applied migration
  ${BUS_TARGET}     provision the JetStream EVENTS stream as the operator's NATS identity (before the services start)
`;

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  const service = argv[0] ?? process.env.APP;
  if (service === BUS_TARGET) {
    const log = rootLogger('migrate-bus');
    if (argv.length > 1 && !(argv.length === 2 && argv[1] === 'run')) {
      process.stderr.write(USAGE);
      process.exit(2);
    }
    try {
      const outcome = await provisionBus();
      // refused: the server kept the stream as it is (the warning above says why); the mesh runs on it
      log.info({ outcome }, `EVENTS stream ${outcome}`);
    } catch (err) {
      log.fatal({ err: (err as Error).message }, 'provisioning the EVENTS stream failed');
      process.exit(1);
    }
    return;
  }
  const verb = (argv[1] ?? 'run') as MigrateVerb;
  const log = rootLogger(service ?? 'migrate');
  if (!service || !MIGRATE_VERBS.includes(verb) || argv.length > 2) {
    process.stderr.write(USAGE);
    process.exit(2);
  }
  try {
    if (verb === 'show') {
      const states = await showServiceMigrations(service);
      for (const state of states) process.stdout.write(`${state.applied ? '[X]' : '[ ]'} ${state.name}\n`);
      if (states.some((s) => !s.applied)) process.exitCode = 3;
    } else if (verb === 'revert') {
      const reverted = await revertServiceMigration(service);
      log.info({ reverted }, reverted ? `reverted ${service}: ${reverted}` : `${service} has no applied migration to revert`);
    } else {
      const applied = await migrateService(service);
      log.info({ applied }, applied.length ? `migrated ${service}: ${applied.join(', ')}` : `${service} is up to date`);
    }
  } catch (err) {
    log.fatal({ err: (err as Error).message }, `migration ${verb} of ${service} failed`);
    process.exit(1);
  }
}

if (require.main === module) void main(process.argv.slice(2));
