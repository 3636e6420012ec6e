import { envInt, ExportLinkConfig, loadExportLinkConfig } from '@app/platform';

export const EXPORTS_CONFIG = Symbol('EXPORTS_CONFIG');

export interface ExportsConfig {
  link: ExportLinkConfig;
  /** How long a claimed job is held without a heartbeat before another worker may retry it. */
  leaseMs: number;
  /** Attempts before a job is marked failed (a crash or an error each count one). */
  maxAttempts: number;
  /** How often an idle worker looks for jobs queued by other replicas. */
  pollMs: number;
  /** Jobs one crm process runs at once. */
  concurrency: number;
  /** Rows fetched from the cursor per round trip. */
  batchRows: number;
  /** Testing only: a pause after every batch, to make a small export slow enough to interrupt. */
  batchDelayMs: number;
}

export function loadExportsConfig(env: NodeJS.ProcessEnv = process.env): ExportsConfig {
  return {
    link: loadExportLinkConfig(env),
    leaseMs: envInt(env, 'EXPORT_LEASE_MS', 30_000, 1_000, 3_600_000),
    maxAttempts: envInt(env, 'EXPORT_MAX_ATTEMPTS', 3, 1, 100),
    pollMs: envInt(env, 'EXPORT_POLL_MS', 1_000, 50, 600_000),
    concurrency: envInt(env, 'EXPORT_WORKER_CONCURRENCY', 2, 0, 64),
    batchRows: envInt(env, 'EXPORT_BATCH_ROWS', 2_000, 1, 100_000),
    batchDelayMs: envInt(env, 'EXPORT_TEST_BATCH_DELAY_MS', 0, 0, 60_000),
  };
}
