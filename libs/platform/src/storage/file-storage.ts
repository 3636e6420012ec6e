import { Readable, Writable } from 'node:stream';

/**
 * Where export files live. Keys are relative paths (`<workspace>/<export>.<attempt>.csv`).
 * A write stream makes its file visible only when it finishes (`end()` then 'finish'); a
 * stream destroyed before that leaves nothing behind.
 */
export interface FileStorage {
  readonly kind: 'local' | 's3';
  /** A writable that respects backpressure; 'finish' fires once the file is stored. */
  createWriteStream(key: string, contentType: string): Writable;
  /** The stored file; FileNotFoundError when there is none. */
  openReadStream(key: string): Promise<{ stream: Readable; size?: number }>;
  /** Removes the file; no error when there is none. */
  delete(key: string): Promise<void>;
  /**
   * Removes what writers that died left behind (temporary files untouched for `olderThanMs`);
   * resolves with how many. S3 has no such method: a bucket lifecycle rule
   * (AbortIncompleteMultipartUpload) removes the parts of abandoned uploads.
   */
  removeAbandoned?(olderThanMs: number): Promise<number>;
}

export class FileNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`no stored file '${key}'`);
  }
}

/** Keys are built by the services, but a `..` or absolute path must never escape the store. */
export function assertSafeKey(key: string): void {
  if (!key || key.startsWith('/') || key.split('/').some((part) => part === '' || part === '.' || part === '..') || key.includes('\\') || key.includes('\0')) {
    throw new Error(`invalid storage key '${key}'`);
  }
}
