import { SERVICE_NAMES, ServiceName } from '@app/contracts';
import { databaseUrlFor } from '@app/platform/config';
import { Migration, prepareDatabase } from '@app/platform/db';
import { rootLogger } from '@app/platform/logger';
import { MIGRATIONS as BILLING_MIGRATIONS } from '../apps/billing/src/migrations';
import { CRM_MIGRATIONS } from '../apps/crm/src/migrations';
import { GATEWAY_MIGRATIONS } from '../apps/gateway/src/migrations';
import { MIGRATIONS as SEARCH_MIGRATIONS } from '../apps/search/src/migrations';
import { MIGRATIONS as SEQUENCES_MIGRATIONS } from '../apps/sequences/src/migrations';
import { MIGRATIONS as WEBHOOKS_MIGRATIONS } from '../apps/webhooks/src/migrations';

/**
 * One-shot migration of one service's database: `node dist/tools/migrate.js <service>`.
 * Creates the database when missing, applies the migrations not yet recorded (under the same
 * advisory lock the services take at boot) and exits 0; any failure exits 1. Run by the
 * compose `migrate-<service>` containers and the Kubernetes `<service>-migrate` Jobs before the
 * new version of the service starts. Reads the same variables as the service
 * (`<SERVICE>_DATABASE_URL`, else `DATABASE_URL` + `DB_PREFIX`).
 */
export const SERVICE_MIGRATIONS: Record<ServiceName, Migration[]> = {
  gateway: GATEWAY_MIGRATIONS,
  search: SEARCH_MIGRATIONS,
  crm: CRM_MIGRATIONS,
  sequences: SEQUENCES_MIGRATIONS,
  billing: BILLING_MIGRATIONS,
  webhooks: WEBHOOKS_MIGRATIONS,
};

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
