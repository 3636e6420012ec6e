import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { hostname } from 'node:os';
import { FILE_STORAGE, FileStorage, histogram, randomToken, rootLogger, runPeriodically } from '@app/platform';
import { ExportRow } from './export.mapper';
import { writeExportFile } from './export-writer';
import { EXPORTS_CONFIG, ExportsConfig } from './exports.config';
import { ExportsRepository } from './exports.repository';

const SWEEP_EVERY_MS = 10 * 60 * 1000;
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

/**
 * Runs export jobs in this crm process. Claims come from the shared queue table (see
 * ExportsRepository), so any number of replicas can run workers; a job's lease is renewed by a
 * heartbeat while it runs, and a job whose process died is retried by whichever worker finds
 * its lease expired, up to EXPORT_MAX_ATTEMPTS. On shutdown, running jobs are interrupted and
 * given back to the queue.
 */
const exportDuration = histogram('export_duration_seconds', 'Time to write one export file, by format and outcome', ['format', 'outcome'], [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]);

@Injectable()
export class ExportWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly workerId = `${hostname()}:${process.pid}:${randomToken(6)}`;
  private readonly log = rootLogger('crm').child({ component: 'export-worker' });
  private readonly running = new Map<string, AbortController>();
  private readonly finished = new Set<Promise<void>>();
  private pollTimer?: NodeJS.Timeout;
  private stopSweeping?: () => void;
  private stopping = false;
  private claiming = false;
  private claimAgain = false;

  constructor(
    private readonly repository: ExportsRepository,
    @Inject(FILE_STORAGE) private readonly storage: FileStorage,
    @Inject(EXPORTS_CONFIG) private readonly config: ExportsConfig,
  ) {}

  onApplicationBootstrap(): void {
    // the queue is shared by every replica: each reports it, workers or not
    this.repository.observeBacklog();
    if (this.config.concurrency === 0) return;
    this.pollTimer = setInterval(() => this.wake(), this.config.pollMs);
    this.pollTimer.unref();
    this.stopSweeping = runPeriodically(() => this.sweepExpiredFiles(), SWEEP_EVERY_MS);
    this.wake();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.pollTimer);
    this.stopSweeping?.();
    for (const abort of this.running.values()) abort.abort(new Error('crm is shutting down'));
    await Promise.allSettled([...this.finished]);
  }

  /** Looks for work now (a job was just queued here, or the poll interval passed). */
  wake(): void {
    if (this.stopping || this.config.concurrency === 0) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = true;
    this.claimJobs()
      .catch((err: Error) => this.log.warn({ err: err.message }, 'claiming export jobs failed'))
      .finally(() => {
        this.claiming = false;
        if (this.claimAgain) {
          this.claimAgain = false;
          this.wake();
        }
      });
  }

  private async claimJobs(): Promise<void> {
    await this.repository.failExhausted(this.config.maxAttempts);
    while (!this.stopping && this.running.size < this.config.concurrency) {
      const job = await this.repository.claim(this.workerId, this.config.leaseMs, this.config.maxAttempts);
      if (!job) return;
      const abort = new AbortController();
      this.running.set(job.id, abort);
      const done = this.run(job, abort).finally(() => {
        this.running.delete(job.id);
        this.finished.delete(done);
        this.wake();
      });
      this.finished.add(done);
    }
  }

  private async run(job: ExportRow, abort: AbortController): Promise<void> {
    const started = Date.now();
    const log = this.log.child({ export_id: job.id, workspace_id: job.workspace_id, attempt: job.attempts });
    const heartbeat = setInterval(() => {
      this.repository
        .heartbeat(job, this.workerId, this.config.leaseMs)
        .then((held) => {
          if (!held) abort.abort(new Error('the job was taken over by another worker (lease lost)'));
        })
        .catch(() => undefined); // a missed beat: the lease has slack for two more
    }, Math.max(200, Math.floor(this.config.leaseMs / 3)));
    const fileKey = `${job.workspace_id}/${job.id}.${job.attempts}.${job.format}`;
    try {
      const rowCount = await writeExportFile(
        this.repository, this.storage,
        { workspaceId: job.workspace_id, filter: job.filter, format: job.format, fileKey },
        { batchRows: this.config.batchRows, batchDelayMs: this.config.batchDelayMs, signal: abort.signal },
      );
      clearInterval(heartbeat);
      if (await this.repository.complete(job, this.workerId, rowCount, fileKey)) {
        exportDuration.observe({ format: job.format, outcome: 'completed' }, (Date.now() - started) / 1000);
        log.info({ row_count: rowCount, ms: Date.now() - started }, 'export completed');
      } else {
        log.warn('export finished after its lease was lost; another attempt owns it, file discarded');
        await this.storage.delete(fileKey).catch(() => undefined);
      }
    } catch (err) {
      clearInterval(heartbeat);
      const message = (err as Error)?.message ?? String(err);
      if (this.stopping) {
        log.info('export interrupted by shutdown; queued again');
        await this.repository.release(job, this.workerId).catch(() => undefined);
        return;
      }
      exportDuration.observe({ format: job.format, outcome: 'failed' }, (Date.now() - started) / 1000);
      log.error({ err: message }, 'export attempt failed');
      const retryDelayMs = Math.min(60_000, 1000 * 2 ** job.attempts);
      await this.repository.fail(job, this.workerId, message, this.config.maxAttempts, retryDelayMs).catch(() => undefined);
    }
  }

  /** Files whose download link expired are deleted; the job stays, without a file. */
  private async sweepExpiredFiles(): Promise<void> {
    for (const file of await this.repository.expiredFiles(500)) {
      await this.storage.delete(file.file_key);
      await this.repository.forgetFile(file.id);
    }
    // partial files of attempts whose process was killed (a running attempt writes every few ms)
    await this.storage.removeAbandoned?.(ABANDONED_AFTER_MS);
  }
}
