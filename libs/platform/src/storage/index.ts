import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../config';
import { FileStorage } from './file-storage';
import { LocalFileStorage } from './local-file-storage';

export * from './file-storage';
export * from './local-file-storage';

/** The repository root (where nest-cli.json is), else the working directory (containers). */
function repoRoot(dir = __dirname): string {
  for (let current = dir; ; current = join(current, '..')) {
    if (existsSync(join(current, 'nest-cli.json'))) return current;
    if (resolve(current, '..') === resolve(current)) return process.cwd();
  }
}

/**
 * The export file store chosen by EXPORT_STORAGE: `local` (default; EXPORT_STORAGE_DIR, default
 * `.data/exports` under the repository root) or `s3` (S3_BUCKET, S3_ENDPOINT, S3_REGION,
 * S3_FORCE_PATH_STYLE, S3_PREFIX; credentials from the standard AWS variables). The S3 client
 * is loaded only when chosen.
 */
export function createFileStorage(env: NodeJS.ProcessEnv = process.env): FileStorage {
  const kind = env.EXPORT_STORAGE || 'local';
  if (kind === 'local') {
    const dir = env.EXPORT_STORAGE_DIR || join(repoRoot(), '.data', 'exports');
    return new LocalFileStorage(isAbsolute(dir) ? dir : resolve(repoRoot(), dir));
  }
  if (kind === 's3') {
    if (!env.S3_BUCKET) throw new ConfigError('S3_BUCKET is required when EXPORT_STORAGE=s3');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { S3FileStorage } = require('./s3-file-storage') as typeof import('./s3-file-storage');
    return new S3FileStorage({
      bucket: env.S3_BUCKET,
      prefix: env.S3_PREFIX ?? '',
      client: {
        region: env.S3_REGION || env.AWS_REGION || 'us-east-1',
        ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
        forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
      },
    });
  }
  throw new ConfigError(`EXPORT_STORAGE must be local or s3, got "${kind}"`);
}

/** Nest injection token of the FileStorage a service uses. */
export const FILE_STORAGE = Symbol('FILE_STORAGE');
