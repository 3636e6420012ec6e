import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import Cursor from 'pg-cursor';
import { ExportFilter, ExportFormat } from '@app/contracts';
import { FileStorage } from '@app/platform';
import { CONTENT_TYPES, encoderFor, ExportEncoder } from './export-format';
import { ExportsRepository } from './exports.repository';

/**
 * A readable of the file's bytes, fed from a server-side cursor one batch at a time: a batch
 * is fetched only when the consumer asks for more (`_read`), so at most a batch of rows and
 * the streams' buffers are in memory, whatever the export's size.
 */
class CursorExportStream extends Readable {
  rows = 0;
  private opened = false;
  private ended = false;

  constructor(
    private readonly cursor: Cursor,
    private readonly encoder: ExportEncoder,
    private readonly batchRows: number,
    private readonly batchDelayMs: number,
  ) {
    super({ highWaterMark: 256 * 1024 });
  }

  _read(): void {
    this.next().catch((err: Error) => this.destroy(err));
  }

  private async next(): Promise<void> {
    if (this.ended) return;
    let chunk = '';
    if (!this.opened) {
      this.opened = true;
      chunk = this.encoder.open();
    }
    const rows = (await this.cursor.read(this.batchRows)) as unknown[][];
    if (this.batchDelayMs > 0) await sleep(this.batchDelayMs);
    if (rows.length === 0) {
      this.ended = true;
      this.push(chunk + this.encoder.close());
      this.push(null);
      return;
    }
    this.rows += rows.length;
    this.push(chunk + this.encoder.batch(rows));
  }
}

export interface ExportJob {
  workspaceId: string;
  filter: ExportFilter;
  format: ExportFormat;
  fileKey: string;
}

/**
 * Streams the leads an export selects into its file through Node streams (backpressure from
 * the store back to the cursor). Resolves with the number of rows written once the file is
 * stored; `signal` aborts (the partial file is discarded).
 */
export async function writeExportFile(
  exports: ExportsRepository, storage: FileStorage, job: ExportJob, options: { batchRows: number; batchDelayMs: number; signal?: AbortSignal },
): Promise<number> {
  return exports.withLeadCursor(job.workspaceId, job.filter, job.format, async (cursor) => {
    const source = new CursorExportStream(cursor, encoderFor(job.format), options.batchRows, options.batchDelayMs);
    await pipeline(source, storage.createWriteStream(job.fileKey, CONTENT_TYPES[job.format]), { signal: options.signal });
    return source.rows;
  });
}
