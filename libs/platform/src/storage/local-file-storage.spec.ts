import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileNotFoundError } from './file-storage';
import { LocalFileStorage } from './local-file-storage';
import { createFileStorage } from './index';

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('LocalFileStorage', () => {
  let dir: string;
  let storage: LocalFileStorage;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storage-'));
    storage = new LocalFileStorage(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes through a stream (creating directories), reads back with the size, deletes', async () => {
    await pipeline(Readable.from(['a,b\r\n', '1,2\r\n']), storage.createWriteStream('ws_1/exp_1.1.csv', 'text/csv'));
    const { stream, size } = await storage.openReadStream('ws_1/exp_1.1.csv');
    expect(size).toBe(10);
    expect(await readAll(stream)).toBe('a,b\r\n1,2\r\n');
    await storage.delete('ws_1/exp_1.1.csv');
    await expect(storage.openReadStream('ws_1/exp_1.1.csv')).rejects.toBeInstanceOf(FileNotFoundError);
    await storage.delete('ws_1/exp_1.1.csv'); // deleting twice is fine
  });

  it('a file appears only once its stream finishes; a destroyed stream leaves nothing', async () => {
    const writable = storage.createWriteStream('ws_1/partial.csv', 'text/csv');
    await new Promise<void>((resolve, reject) => writable.write('half', (err) => (err ? reject(err) : resolve())));
    await expect(storage.openReadStream('ws_1/partial.csv')).rejects.toBeInstanceOf(FileNotFoundError);
    writable.on('error', () => undefined);
    writable.destroy(new Error('aborted'));
    await new Promise((resolve) => writable.once('close', resolve));
    expect(readdirSync(join(dir, 'ws_1'))).toEqual([]);
  });

  it('applies backpressure: write() returns false past the high-water mark and drains', async () => {
    const writable: Writable = storage.createWriteStream('big.bin', 'application/octet-stream');
    const chunk = Buffer.alloc(128 * 1024, 120);
    let refused = 0;
    for (let i = 0; i < 64; i++) {
      if (!writable.write(chunk)) {
        refused++;
        await new Promise((resolve) => writable.once('drain', resolve));
      }
    }
    await new Promise<void>((resolve, reject) => writable.end((err?: Error | null) => (err ? reject(err) : resolve())));
    expect(refused).toBeGreaterThan(0);
    expect(readFileSync(join(dir, 'big.bin')).length).toBe(64 * 128 * 1024);
  });

  it('removeAbandoned deletes temporary files left by a dead writer, only once they are old', async () => {
    const writable = storage.createWriteStream('ws_1/dead.csv', 'text/csv');
    await new Promise<void>((resolve, reject) => writable.write('half', (err) => (err ? reject(err) : resolve())));
    await pipeline(Readable.from(['done']), storage.createWriteStream('ws_1/kept.csv', 'text/csv'));
    expect(await storage.removeAbandoned(60_000)).toBe(0); // still fresh: maybe a live writer
    expect(await storage.removeAbandoned(60_000, Date.now() + 120_000)).toBe(1);
    expect(readdirSync(join(dir, 'ws_1'))).toEqual(['kept.csv']);
    writable.on('error', () => undefined);
    writable.destroy();
  });

  it('refuses keys that would leave the directory', () => {
    for (const key of ['../x', '/etc/passwd', 'a/../../b', '', 'a//b', 'a\\b']) {
      expect(() => storage.createWriteStream(key, 'text/csv')).toThrow(/invalid storage key/);
    }
  });

  it('createFileStorage: local by default under EXPORT_STORAGE_DIR; unknown kinds and s3 without a bucket are refused', () => {
    const local = createFileStorage({ EXPORT_STORAGE_DIR: dir }) as LocalFileStorage;
    expect(local.kind).toBe('local');
    expect(local.directory).toBe(dir);
    expect((createFileStorage({}) as LocalFileStorage).directory).toMatch(/\.data\/exports$/);
    expect(() => createFileStorage({ EXPORT_STORAGE: 'ftp' })).toThrow(/EXPORT_STORAGE/);
    expect(() => createFileStorage({ EXPORT_STORAGE: 's3' })).toThrow(/S3_BUCKET/);
  });
});
