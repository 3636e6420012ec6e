import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { SegmentBuilder, SegmentBuilderParts } from './memory-index';

/**
 * The seed encoder's thread: search:seed's chunks made (seed.ts) and written for COPY into
 * `entities` with their segment's builder (entities.repository.ts encodeSeedChunk) on a worker
 * thread of the search process, while its event loop writes the chunks before and answers pages
 * (docs/decisions.md, "The seed is encoded on a thread of its own"). The thread runs the file the
 * service started from (its bundle: `dist/apps/search/main.js`), whose main sees it is this thread
 * (isSeedEncoderThread) and serves chunks instead of starting the service.
 */
const ROLE = 'search-seed-encoder';

/** The file a seed encoder's thread runs; unset (no thread: chunks encoded inline) until the service's main names itself. */
let entry: string | undefined;

/** A chunk of the seed ready to be copied into `entities`: its rows (COPY's binary format), its segment's builder, its ext_keys and ids in row order. */
export interface EncodedChunk {
  pieces: Buffer[];
  builder: SegmentBuilder;
  extKeys: string[];
  ids: string[];
}

/** An EncodedChunk as a thread posts it (structured clone: Buffers arrive as Uint8Arrays, the builder as its parts). */
interface PostedChunk {
  pieces: Uint8Array[];
  builder: SegmentBuilderParts;
  extKeys: string[];
  ids: string[];
}

/** search's main: seed chunks are encoded on a thread running `file` (this same file); undefined: inline again. */
export function encodeSeedOnThread(file: string | undefined): void {
  entry = file;
}

/** Whether this is a seed encoder's thread (its main serves chunks: serveSeedChunks). */
export function isSeedEncoderThread(): boolean {
  return !isMainThread && (workerData as { role?: string } | null)?.role === ROLE;
}

/**
 * The thread's side: each request {id, start, count} answered with `encode(start, count)`'s chunk,
 * its buffers moved to the asking thread (transferred, not copied); none (undefined) when encode
 * gave none or failed: the asking thread then writes the chunk itself, the way it writes any
 * batch, and meets the same error there if it is one.
 */
export function serveSeedChunks(encode: (start: number, count: number) => EncodedChunk | undefined): void {
  const port = parentPort;
  if (!port) throw new Error('serveSeedChunks runs on a worker thread');
  port.on('message', ({ id, start, count }: { id: number; start: number; count: number }) => {
    let chunk: EncodedChunk | undefined;
    try {
      chunk = encode(start, count);
    } catch {
      chunk = undefined;
    }
    if (!chunk) return port.postMessage({ id });
    const transfer: ArrayBuffer[] = [];
    const builder = chunk.builder.parts(transfer);
    // a piece's own buffer is moved; one of Buffer's shared pool (a small allocation) is copied
    for (const piece of chunk.pieces) if (piece.buffer.byteLength > Buffer.poolSize) transfer.push(piece.buffer as ArrayBuffer);
    const posted: PostedChunk = { pieces: chunk.pieces, builder, extKeys: chunk.extKeys, ids: chunk.ids };
    port.postMessage({ id, chunk: posted }, [...new Set(transfer)]);
  });
}

/**
 * The asking side, one per writer: a thread started at the first chunk asked (unref'd: it holds
 * no process open), its answers matched to their requests by number. A thread that fails or
 * exits answers its waiting requests with none and is not started again: the writer then
 * encodes its chunks itself.
 */
export class SeedEncoder {
  private worker?: Worker;
  private broken = false;
  private next = 0;
  private readonly waiting = new Map<number, (chunk: EncodedChunk | undefined) => void>();

  /** Whether chunks can be encoded on a thread: the service's main named its file, and no thread failed. */
  get available(): boolean {
    return entry !== undefined && !this.broken;
  }

  /** The chunk of seed entities start..start+count-1, encoded on the thread; undefined when it gave none. */
  encode(start: number, count: number): Promise<EncodedChunk | undefined> {
    const worker = this.started();
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      worker.postMessage({ id, start, count });
    });
  }

  /** Stops the thread (a writer's last act; chunks asked after are encoded on a new one). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    if (entry === undefined) throw new Error('no seed encoder thread: encodeSeedOnThread was not called');
    const worker = new Worker(entry, { workerData: { role: ROLE } });
    worker.unref();
    worker.on('message', ({ id, chunk }: { id: number; chunk?: PostedChunk }) => {
      const resolve = this.waiting.get(id);
      this.waiting.delete(id);
      resolve?.(chunk && {
        pieces: chunk.pieces.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)),
        builder: SegmentBuilder.fromParts(chunk.builder),
        extKeys: chunk.extKeys,
        ids: chunk.ids,
      });
    });
    const gone = () => {
      if (this.worker === worker) {
        this.worker = undefined;
        this.broken = true;
      }
      for (const resolve of this.waiting.values()) resolve(undefined);
      this.waiting.clear();
    };
    worker.on('error', gone);
    worker.on('exit', gone);
    this.worker = worker;
    return worker;
  }
}
