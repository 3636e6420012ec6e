import { SERVICE_NAMES, ServiceName } from '@app/contracts';
import { databaseUrlFor } from '@app/platform/config';
import { Migration, prepareDatabase } from '@app/platform/db';
import { rootLogger } from '@app/platform/logger';

/**
 * One-shot migration of one service's database: `node dist/tools/migrate.js <service>`.
 * Creates the database when missing, applies the migrations not yet recorded (under the same
 * advisory lock the services take at boot) and exits 0; any failure exits 1. Run by the
 * compose `migrate-<service>` containers and the Kubernetes `<service>-migrate` Jobs before the
 * new version of the service starts. Reads the same variables as the service
 * (`<SERVICE>_DATABASE_URL`, else `DATABASE_URL` + `DB_PREFIX`).
 *
 * Each service's migrations load when asked for: a service's image holds its own migrations
 * and not the other services' (tools/image/deps.ts follows only the required one).
 */
const LOADERS: Record<ServiceName, () => Migration[]> = {
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
) as Record<ServiceName, Migration[]>;

/** Errors worth waiting out: the server is not up yet, or is starting or recovering. */
const TRANSIENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', '57P03', '53300']);

export interface MigrateOptions {
  env?: NodeJS.ProcessEnv;
  /** How long to keep retrying while the database server cannot be reached. */
  waitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export async function migrateService(service: string, options: MigrateOptions = {}): Promise<string[]> {
  if (!(SERVICE_NAMES as readonly string[]).includes(service)) {
    throw new Error(`unknown service "${service}"; one of: ${SERVICE_NAMES.join(', ')}`);
  }
  const env = options.env ?? process.env;
  const url = databaseUrlFor(service as ServiceName, env);
  const waitMs = options.waitMs ?? Number(env.MIGRATE_WAIT_MS || 60_000);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await prepareDatabase(url, SERVICE_MIGRATIONS[service as ServiceName]);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (!code || !TRANSIENT.has(code) || Date.now() >= deadline) throw err;
      await sleep(1000);
    }
  }
}

async function main(argv: string[]): Promise<void> {
  const service = argv[0] ?? process.env.APP;
  const log = rootLogger(service ?? 'migrate');
  if (!service || argv.includes('--help')) {
    process.stderr.write(`usage: node dist/tools/migrate.js <${SERVICE_NAMES.join('|')}>\n`);
    process.exit(2);
  }
  try {
    const applied = await migrateService(service);
    log.info({ applied }, applied.length ? `migrated ${service}: ${applied.join(', ')}` : `${service} is up to date`);
  } catch (err) {
    log.fatal({ err: (err as Error).message }, `migration of ${service} failed`);
    process.exit(1);
  }
}

if (require.main === module) void main(process.argv.slice(2));
