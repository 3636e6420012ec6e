import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver');
import { FileNotFoundError } from './file-storage';
import { S3FileStorage } from './s3-file-storage';
import { createFileStorage } from './index';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** S3FileStorage against s3rver, a local S3-compatible server (no network). */
describe('S3FileStorage (against s3rver)', () => {
  let dir: string;
  let server: { run(): Promise<{ port: number }>; close(): Promise<void> };
  let storage: S3FileStorage;
  let endpoint: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 's3rver-'));
    server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'exports' }] });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    storage = new S3FileStorage({
      bucket: 'exports',
      prefix: 'test/',
      client: { region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } },
    });
  });
  afterAll(async () => {
    storage?.client.destroy();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams a small file in, reads it back with its content type, deletes it', async () => {
    await pipeline(Readable.from(['id,name\r\n', '1,Ada\r\n']), storage.createWriteStream('ws_1/exp_1.1.csv', 'text/csv; charset=utf-8'));
    const head = await storage.client.send(new HeadObjectCommand({ Bucket: 'exports', Key: 'test/ws_1/exp_1.1.csv' }));
    expect(head.ContentType).toBe('text/csv; charset=utf-8');
    const { stream, size } = await storage.openReadStream('ws_1/exp_1.1.csv');
    expect(size).toBe(16);
    expect((await readAll(stream)).toString()).toBe('id,name\r\n1,Ada\r\n');
    await storage.delete('ws_1/exp_1.1.csv');
    await expect(storage.openReadStream('ws_1/exp_1.1.csv')).rejects.toBeInstanceOf(FileNotFoundError);
  });

  it('a file larger than one part goes up as a multipart upload, byte for byte', async () => {
    const part = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < part.length; i++) part[i] = i % 251;
    await pipeline(Readable.from(Array.from({ length: 12 }, () => part)), storage.createWriteStream('big.bin', 'application/octet-stream'));
    const { stream, size } = await storage.openReadStream('big.bin');
    expect(size).toBe(12 * part.length);
    const back = await readAll(stream);
    expect(back.subarray(5 * part.length, 6 * part.length).equals(part)).toBe(true);
  });

  it('a missing object is FileNotFoundError', async () => {
    await expect(storage.openReadStream('nothing/here.csv')).rejects.toBeInstanceOf(FileNotFoundError);
  });

  it('createFileStorage picks S3 from EXPORT_STORAGE=s3 and the S3_* variables', () => {
    const chosen = createFileStorage({ EXPORT_STORAGE: 's3', S3_BUCKET: 'exports', S3_ENDPOINT: endpoint, S3_REGION: 'eu-west-1', S3_FORCE_PATH_STYLE: 'true' });
    expect(chosen.kind).toBe('s3');
    (chosen as S3FileStorage).client.destroy();
  });
});
