import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Pool, PoolClient } from 'pg';
import { ignorePoolError, PG_POOL, poolConfig, rootLogger, SERVICE_CONFIG, ServiceConfig } from '@app/platform';
import { SEARCH_CONFIG, SearchConfig } from '../search.config';

/** How long a search page waits for a connection to the replica before it reads the primary instead. */
const REPLICA_CONNECT_TIMEOUT_MS = 2000;
/** At most one warning per this long while the replica does not answer. */
const FALLBACK_WARNING_MS = 60_000;

/**
 * Where search pages are read (EntitiesRepository.search): a pool of its own on a streaming
 * replica when SEARCH_READ_DATABASE_URL is set, else the service's pool on the primary. A page
 * read on the replica may be milliseconds behind the primary (its ranked-ids cache is stamped
 * with the generation read in the same snapshot, so it is never newer than the rows). A replica
 * that does not answer (none left behind CloudNativePG's `-ro` service, a restart) does not take
 * search down: that page is read on the primary, and a warning says so.
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

  /** Whether pages are read on a replica (SEARCH_READ_DATABASE_URL set). */
  get onReplica(): boolean {
    return this.replica !== undefined;
  }

  /** A connection to read a page on: the replica's, or the primary's when there is none or it does not answer. */
  async connect(): Promise<PoolClient> {
    if (!this.replica) return this.primary.connect();
    try {
      return await this.replica.connect();
    } catch (err) {
      if (Date.now() - this.warnedAt > FALLBACK_WARNING_MS) {
        this.warnedAt = Date.now();
        rootLogger().warn({ err: (err as Error).message }, 'search: the read replica (SEARCH_READ_DATABASE_URL) does not answer; pages are read on the primary');
      }
      return this.primary.connect();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.replica?.end();
  }
}
