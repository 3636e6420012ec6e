import { envInt, optionalDatabaseUrl } from '@app/platform';
import { searchIndexOf } from './migrations/index-layout';
import { loadVerifierConfig, VerifierConfig } from './reveals/email-verifier';

/** The search service's own settings (docs/configuration.md), read once at start-up. */
export interface SearchConfig {
  /** Deadline of search's requests to billing and crm in the search and reveal sagas. */
  peerTimeoutMs: number;
  /** Queries (and page offsets) whose ordered hit ids a process keeps (MemorySearchIndex.top); 0 ranks every page in the index. */
  rankedCacheEntries: number;
  /**
   * Rows of recent pages a process keeps with their version (SEARCH_ROW_CACHE; EntitiesRepository's
   * RowVersions): a page's statement writes a row's columns only when it is another version. 0: none.
   */
  rowCacheEntries: number;
  /** How long a concurrent reveal of the same entity waits for the first one before 409. */
  revealWaitMs: number;
  /**
   * How old a `pending` reveal claim must be to count as abandoned (REVEAL_CLAIM_ABANDONED_MS):
   * longer than a claimer can hold it (a consume, the email checks, crm's upsert and a refund,
   * each within its deadline, plus slack for the database), so only a claimer that is gone
   * (SIGKILL, lost host) leaves one that old.
   */
  revealClaimAbandonedMs: number;
  /** How often refunds billing could not take are tried again. */
  refundRetryMs: number;
  verifier: VerifierConfig;
  /**
   * Credit leases of search pages (docs/decisions.md, "Credit leases"): a lease is charged against
   * for at most SEARCH_LEASE_TTL_MS, returned after SEARCH_LEASE_IDLE_MS without a page, holds at
   * most SEARCH_LEASE_MAX credits; every SEARCH_LEASE_SWEEP_MS each replica closes and settles
   * what is due, its own leases and any other replica's.
   */
  lease: { ttlMs: number; idleMs: number; max: number; sweepMs: number };
  /**
   * Search's database on a streaming replica (SEARCH_READ_DATABASE_URL), read-only: search pages
   * are read there (a page may be milliseconds behind the primary); reveals, credits, ingest and
   * everything else stay on the primary. Unset: everything reads the primary.
   */
  readDatabaseUrl: string | undefined;
  /** How often a process's in-memory index looks for batches other processes wrote (SEARCH_INDEX_POLL_MS). */
  indexPollMs: number;
  /**
   * Page-read statements a process runs at once (SEARCH_PAGE_READS_AT_ONCE, default 3): pages asked
   * while that many run wait and go together in the next one (ReadBatch), so that pages are read on
   * as many PostgreSQL connections, which stay warm (docs/decisions.md, "Search keeps its
   * PostgreSQL connections"). Sized per deployment like the pool: about the database's cores over
   * search's replicas.
   */
  pageReadsAtOnce: number;
}

/** SEARCH_PAGE_READS_AT_ONCE's default. */
export const DEFAULT_PAGE_READS_AT_ONCE = 3;

export const SEARCH_CONFIG = Symbol('SEARCH_CONFIG');

/** SEARCH_ROW_CACHE's default: the rows of 800 pages, about 1.2 KB each (24 MB). */
export const DEFAULT_ROW_CACHE = 20_000;

export function loadSearchConfig(env: NodeJS.ProcessEnv = process.env): SearchConfig {
  const peerTimeoutMs = envInt(env, 'SEARCH_PEER_TIMEOUT_MS', 5000, 100, 120_000);
  const verifier = loadVerifierConfig(env);
  // SEARCH_INDEX names the one index there is, or is unset: a removed layout (rum, bands) is a ConfigError
  searchIndexOf(env.SEARCH_INDEX);
  return {
    peerTimeoutMs,
    rankedCacheEntries: envInt(env, 'SEARCH_RANKED_CACHE', 256, 0, 1_000_000),
    rowCacheEntries: envInt(env, 'SEARCH_ROW_CACHE', DEFAULT_ROW_CACHE, 0, 10_000_000),
    revealWaitMs: envInt(env, 'REVEAL_WAIT_MS', 30_000, 0, 600_000),
    revealClaimAbandonedMs: envInt(env, 'REVEAL_CLAIM_ABANDONED_MS', 3 * peerTimeoutMs + verifier.totalMs + 5000, 1000, 86_400_000),
    refundRetryMs: envInt(env, 'SEARCH_REFUND_RETRY_MS', 5000, 10, 86_400_000),
    verifier,
    lease: {
      ttlMs: envInt(env, 'SEARCH_LEASE_TTL_MS', 60_000, 100, 86_400_000),
      idleMs: envInt(env, 'SEARCH_LEASE_IDLE_MS', 5000, 10, 86_400_000),
      max: envInt(env, 'SEARCH_LEASE_MAX', 500, 1, 100_000),
      sweepMs: envInt(env, 'SEARCH_LEASE_SWEEP_MS', 1000, 10, 600_000),
    },
    readDatabaseUrl: optionalDatabaseUrl(env, 'SEARCH_READ_DATABASE_URL'),
    indexPollMs: envInt(env, 'SEARCH_INDEX_POLL_MS', 1000, 10, 3_600_000),
    pageReadsAtOnce: envInt(env, 'SEARCH_PAGE_READS_AT_ONCE', DEFAULT_PAGE_READS_AT_ONCE, 1, 1000),
  };
}

