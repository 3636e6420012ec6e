import { PoolClient } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { eventsCommitted, RECORDED_EVENTS } from './events';
import { inWarmUp, rolledBackForWarmUp } from './warm-up-scope';

/**
 * One transaction, as the repositories taking part in it see it: `query` and `client` are the
 * transaction's connection as node-postgres sees it (hand-written statements: recordEvent into
 * the outbox, claims, advisory locks), `manager` is TypeORM's on the same connection (entity
 * repositories through `manager.getRepository(Entity)`). A repository method that takes part in
 * a unit of work takes the Tx (or only its `query`, `Queryable`) as its first argument.
 */
export interface Tx {
  query: PoolClient['query'];
  client: PoolClient;
  manager: EntityManager;
}

export interface UnitOfWorkOptions {
  /**
   * The commit does not wait for the WAL flush: for writes a database crash may lose because
   * they are made again (webhook attempt outcomes). One more statement (SET LOCAL) after BEGIN.
   */
  asyncCommit?: boolean;
}

/**
 * The one way a service asks for a transaction: `run(work)` takes a connection of the service's
 * pool (TypeORM's DataSource, the pool every repository reads on), begins, hands `work` the Tx,
 * commits when it resolves and rolls back when it throws. Services hold a UnitOfWork and their
 * repositories, never a pool; the statements stay in the repositories. A transaction costs
 * exactly BEGIN and COMMIT around its statements (no savepoint, no extra round trip). In a
 * start-up warm-up request it rolls back instead of committing (warm-up.ts).
 */
export class UnitOfWork {
  constructor(private readonly dataSource: DataSource) {}

  async run<T>(work: (tx: Tx) => Promise<T>, options: UnitOfWorkOptions = {}): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    // the query runner's connection is a client of the DataSource's node-postgres pool
    const client = (await runner.connect()) as PoolClient;
    try {
      await runner.startTransaction();
      if (options.asyncCommit) await client.query('SET LOCAL synchronous_commit = off');
      // recordEvent marks the Tx when it records an event: the relays of this process are woken once it is committed
      const tx: Tx & { [RECORDED_EVENTS]: boolean } = { query: client.query.bind(client) as PoolClient['query'], client, manager: runner.manager, [RECORDED_EVENTS]: false };
      const result = await work(tx);
      // a start-up warm-up request (warm-up.ts) runs every statement of the work and keeps none
      if (inWarmUp()) {
        await runner.rollbackTransaction();
        throw rolledBackForWarmUp();
      }
      await runner.commitTransaction();
      if (tx[RECORDED_EVENTS]) eventsCommitted();
      return result;
    } catch (err) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
  }
}
