import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import { ignorePoolError, PG_POOL, poolConfig, rootLogger, SERVICE_CONFIG, ServiceConfig } from '@app/platform';
import { SEARCH_CONFIG, SearchConfig } from '../search.config';

/** How long a search page waits for a connection to the replica before it reads the primary instead. */
const REPLICA_CONNECT_TIMEOUT_MS = 2000;
/** At most one warning per this long while the replica does not answer. */
const FALLBACK_WARNING_MS = 60_000;

/**
 * An error that says the replica's connection is gone or its statement was cancelled by recovery,
 * not that the read is wrong: no SQLSTATE (a socket error, a connection ended), connection
 * exceptions (08), the server shutting down (57P01-57P03), a conflict with recovery (40001).
 */
function replicaGone(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57P') || code === '40001';
}

/**
 * Where search pages are read (EntitiesRepository.search): a pool of its own on a streaming
 * replica when SEARCH_READ_DATABASE_URL is set, else the service's pool on the primary. A page
 * read on the replica may be milliseconds behind the primary (its ranked-ids cache is stamped
 * with the generation read in the same snapshot, so it is never newer than the rows). A replica
 * that does not answer (none left behind CloudNativePG's `-ro` service, a restart) does not take
 * search down: that page is read on the primary (run), and a warning says so.
 */
@Injectable()
export class SearchReads implements OnApplicationShutdown {
  private readonly replica: Pool | undefined;
  private warnedAt = 0;

  constructor(@Inject(PG_POOL) private readonly primary: Pool, @Inject(SEARCH_CONFIG) search: SearchConfig, @Inject(SERVICE_CONFIG) service: ServiceConfig) {
    if (search.readDatabaseUrl) {
      this.replica = new Pool({ ...poolConfig(search.readDatabaseUrl, service.pool), connectionTimeoutMillis: REPLICA_CONNECT_TIMEOUT_MS });
      this.replica.on('error', ignorePoolError);
    }
  }

  /**
   * Runs `read` on a connection of the replica, handed back after (destroyed when `read` failed),
   * or of the primary when there is no replica, when none of its connections can be had, or when
   * the one `read` ran on was lost (the replica stopped, a restart) or its statement was cancelled
   * by the replica's recovery: then `read` runs again on the primary. Any other error is `read`'s.
   */
  async run<T>(read: (client: PoolClient) => Promise<T>): Promise<T> {
    if (this.replica) {
      let client: PoolClient | undefined;
      try {
        client = await this.replica.connect();
      } catch (err) {
        this.passedOver(err as Error);
      }
      if (client) {
        try {
          return await readOn(client, read);
        } catch (err) {
          if (!replicaGone(err as Error)) throw err;
          this.passedOver(err as Error);
        }
      }
    }
    return readOn(await this.primary.connect(), read);
  }

  private passedOver(err: Error): void {
    if (Date.now() - this.warnedAt < FALLBACK_WARNING_MS) return;
    this.warnedAt = Date.now();
    rootLogger().warn({ err: err.message }, 'search: the read replica (SEARCH_READ_DATABASE_URL) does not answer; pages are read on the primary');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.replica?.end();
  }
}

/** `read` on `client`, handed back to its pool after (destroyed when `read` failed). */
async function readOn<T>(client: PoolClient, read: (client: PoolClient) => Promise<T>): Promise<T> {
  try {
    const result = await read(client);
    client.release();
    return result;
  } catch (err) {
    client.release(err as Error);
    throw err;
  }
}
