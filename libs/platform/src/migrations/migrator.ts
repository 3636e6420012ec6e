import { DataSource, MigrationExecutor, QueryRunner } from 'typeorm';
import { poolSettings } from '../config';
import { databaseExists, ensureDatabase } from '../db';
import { MigrationClass, MIGRATIONS_TABLE, serviceDataSourceOptions } from '../data-source';

/**
 * The session advisory lock every migration of a service database runs under (the same key the
 * migrator before TypeORM took, so an old replica and a new one never migrate at once either).
 * TypeORM takes no lock of its own: replicas starting together and the Kubernetes migration Job
 * would otherwise race.
 */
export const MIGRATION_LOCK = 72_201_447;

/** The migrator before TypeORM recorded applied ids here; those databases are adopted, not migrated again. */
const LEGACY_TABLE = 'schema_migrations';

/** TypeORM's executor, with the two steps it keeps protected that adoption needs. */
class ServiceMigrationExecutor extends MigrationExecutor {
  all() {
    return this.getMigrations();
  }

  ensureTable(runner: QueryRunner): Promise<void> {
    return this.createMigrationsTableIfNotExist(runner);
  }
}

export interface MigrationState {
  name: string;
  applied: boolean;
}

/**
 * Runs `work` on a DataSource of `databaseUrl` that knows `migrations`, holding the migration
 * lock on the query runner `work` gets (TypeORM's executor runs on that same connection).
 */
async function underMigrationLock<T>(
  databaseUrl: string,
  migrations: MigrationClass[],
  work: (executor: ServiceMigrationExecutor, runner: QueryRunner) => Promise<T>,
): Promise<T> {
  const names = migrations.map((m) => m.name);
  const doubled = names.find((name, i) => names.indexOf(name) !== i);
  if (doubled) throw new Error(`migration ${doubled} is listed twice`);
  const dataSource = new DataSource(serviceDataSourceOptions({ databaseUrl, migrations, pool: { ...poolSettings(), max: 1 } }));
  await dataSource.initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const executor = new ServiceMigrationExecutor(dataSource, runner);
      executor.transaction = 'each';
      await adoptLegacyHistory(executor, runner);
      return await work(executor, runner);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    }
  } finally {
    await runner.release();
    await dataSource.destroy();
  }
}

/**
 * A database the migrator before TypeORM migrated has its applied ids in schema_migrations and
 * no TypeORM record: each migration whose `legacyId` is there is recorded as applied (in one
 * transaction), so the first run of this version applies only what is new. schema_migrations is
 * left as it was: a replica of the previous version that restarts mid-deploy finds its own
 * migrations applied and does nothing.
 */
async function adoptLegacyHistory(executor: ServiceMigrationExecutor, runner: QueryRunner): Promise<void> {
  if (!(await runner.hasTable(LEGACY_TABLE))) return;
  if ((await runner.hasTable(MIGRATIONS_TABLE)) && (await runner.query(`SELECT 1 FROM ${MIGRATIONS_TABLE} LIMIT 1`)).length > 0) return;
  const legacy = new Set((await runner.query(`SELECT id FROM ${LEGACY_TABLE}`) as { id: string }[]).map((row) => row.id));
  const adopted = executor.all().filter((m) => {
    const legacyId = (m.instance as { legacyId?: string } | undefined)?.legacyId;
    return legacyId !== undefined && legacy.has(legacyId);
  });
  if (adopted.length === 0) return;
  await runner.startTransaction();
  try {
    await executor.ensureTable(runner);
    for (const migration of adopted) {
      await runner.query(`INSERT INTO ${MIGRATIONS_TABLE} ("timestamp", name) VALUES ($1, $2)`, [migration.timestamp, migration.name]);
    }
    await runner.commitTransaction();
  } catch (err) {
    await runner.rollbackTransaction();
    throw err;
  }
}

/**
 * Creates the database when missing and applies the migrations not yet applied, each in its own
 * transaction, under the migration lock. Returns the names applied, oldest first.
 */
export async function runMigrations(databaseUrl: string, migrations: MigrationClass[]): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  return underMigrationLock(databaseUrl, migrations, async (executor) => {
    try {
      return (await executor.executePendingMigrations()).map((m) => m.name);
    } catch (err) {
      throw new Error(`migration failed: ${(err as Error).message}`);
    }
  });
}

/** Every migration of the service, oldest first, and whether the database has it. */
export async function showMigrations(databaseUrl: string, migrations: MigrationClass[]): Promise<MigrationState[]> {
  if (!(await databaseExists(databaseUrl))) return migrations.map((m) => ({ name: m.name, applied: false }));
  return underMigrationLock(databaseUrl, migrations, async (executor, runner) => {
    const applied = (await runner.hasTable(MIGRATIONS_TABLE)) ? new Set((await executor.getExecutedMigrations()).map((m) => m.name)) : new Set<string>();
    return executor.all().map((m) => ({ name: m.name, applied: applied.has(m.name) }));
  });
}

/** Undoes the newest applied migration (its `down`) in a transaction; returns its name, or null when none is applied. */
export async function revertLastMigration(databaseUrl: string, migrations: MigrationClass[]): Promise<string | null> {
  return underMigrationLock(databaseUrl, migrations, async (executor, runner) => {
    if (!(await runner.hasTable(MIGRATIONS_TABLE))) return null;
    const applied = await executor.getExecutedMigrations();
    if (applied.length === 0) return null;
    const newest = applied.reduce((a, b) => (b.timestamp > a.timestamp ? b : a));
    await executor.undoLastMigration();
    return newest.name;
  });
}
