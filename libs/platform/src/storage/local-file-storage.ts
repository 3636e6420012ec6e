import { FileHandle, mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { randomToken } from '../ids';
import { assertSafeKey, FileNotFoundError, FileStorage } from './file-storage';

/**
 * Files in a local directory. A file is written under a temporary name beside its final one
 * and renamed into place when the stream finishes, so readers never see a partial file.
 */
export class LocalFileStorage implements FileStorage {
  readonly kind = 'local' as const;

  constructor(readonly directory: string) {}

  pathOf(key: string): string {
    assertSafeKey(key);
    return join(this.directory, key);
  }

  createWriteStream(key: string, _contentType: string): Writable {
    const target = this.pathOf(key);
    const temporary = `${target}.partial-${process.pid}-${randomToken(6)}`;
    let handle: FileHandle | undefined;
    const ready = mkdir(dirname(target), { recursive: true }).then(async () => {
      handle = await open(temporary, 'w');
    });
    return new Writable({
      highWaterMark: 256 * 1024,
      write(chunk: Buffer, _encoding, callback) {
        ready.then(() => handle!.write(chunk)).then(() => callback(), callback);
      },
      writev(chunks, callback) {
        ready.then(() => handle!.writev(chunks.map((c) => c.chunk as Buffer))).then(() => callback(), callback);
      },
      final(callback) {
        ready
          .then(() => handle!.close())
          .then(() => {
            handle = undefined;
            return rename(temporary, target);
          })
          .then(() => callback(), callback);
      },
      destroy(err, callback) {
        ready
          .catch(() => undefined)
          .then(() => handle?.close())
          .catch(() => undefined)
          .then(() => (handle || err ? unlink(temporary) : undefined))
          .catch(() => undefined)
          .then(() => callback(err));
      },
    });
  }

  async openReadStream(key: string): Promise<{ stream: Readable; size: number }> {
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new FileNotFoundError(key);
      throw err;
    }
    const { size } = await handle.stat();
    return { stream: handle.createReadStream({ highWaterMark: 256 * 1024 }), size };
  }

  async delete(key: string): Promise<void> {
    await unlink(this.pathOf(key)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  /** Temporary files (`*.partial-*`) not written to for `olderThanMs`: their writer is gone. */
  async removeAbandoned(olderThanMs: number, now = Date.now()): Promise<number> {
    let removed = 0;
    const visit = async (dir: string, depth: number): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isDirectory() && depth < 4) await visit(path, depth + 1);
        else if (entry.isFile() && entry.name.includes('.partial-')) {
          const info = await stat(path).catch(() => null);
          if (info && now - info.mtimeMs > olderThanMs && (await unlink(path).then(() => true, () => false))) removed++;
        }
      }
    };
    await visit(this.directory, 0);
    return removed;
  }
}
