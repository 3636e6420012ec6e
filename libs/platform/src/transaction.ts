import { PoolClient } from 'pg';
import { DataSource, EntityManager } from 'typeorm';

/**
 * One transaction for entity work and hand-written SQL together: `manager` is TypeORM's
 * (repositories through `manager.getRepository(Entity)`), `client` is the same connection as
 * node-postgres sees it, for statements kept by hand (recordEvent into the outbox, claims, COPY).
 */
export interface Tx {
  manager: EntityManager;
  client: PoolClient;
}

/**
 * Runs `work` in a transaction on one connection of the service's pool (TypeORM's), committing
 * when it resolves and rolling back when it throws. Paths that only run hand-written SQL keep
 * `withTransaction(pool, ...)`, which skips TypeORM's query runner.
 */
export async function inTransaction<T>(dataSource: DataSource, work: (tx: Tx) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  const client = (await runner.connect()) as PoolClient;
  await runner.startTransaction();
  try {
    const result = await work({ manager: runner.manager, client });
    await runner.commitTransaction();
    return result;
  } catch (err) {
    if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
    throw err;
  } finally {
    await runner.release();
  }
}
