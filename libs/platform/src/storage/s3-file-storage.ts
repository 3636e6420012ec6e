import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PassThrough, Readable, Writable } from 'node:stream';
import { assertSafeKey, FileNotFoundError, FileStorage } from './file-storage';

export interface S3StorageOptions {
  bucket: string;
  /** Prefix of every key in the bucket (e.g. `exports/`); may be empty. */
  prefix?: string;
  client: S3ClientConfig;
}

/**
 * Files in an S3-compatible bucket (AWS S3, MinIO, R2…). Writes stream through a multipart
 * upload (@aws-sdk/lib-storage): parts of 5 MiB are sent as they fill, at most `queueSize` in
 * flight, so memory stays bounded whatever the file's size; the object appears only when the
 * upload completes, and a destroyed stream aborts the upload.
 */
export class S3FileStorage implements FileStorage {
  readonly kind = 's3' as const;
  readonly client: S3Client;

  constructor(private readonly options: S3StorageOptions) {
    this.client = new S3Client(options.client);
  }

  private objectKey(key: string): string {
    assertSafeKey(key);
    return `${this.options.prefix ?? ''}${key}`;
  }

  createWriteStream(key: string, contentType: string): Writable {
    const body = new PassThrough({ highWaterMark: 1024 * 1024 });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.options.bucket, Key: this.objectKey(key), Body: body, ContentType: contentType },
      queueSize: 2,
      partSize: 5 * 1024 * 1024,
      leavePartsOnError: false,
    });
    const done = upload.done();
    done.catch(() => undefined); // observed in final(); an early failure must not go unhandled
    return new Writable({
      highWaterMark: 256 * 1024,
      write(chunk: Buffer, _encoding, callback) {
        if (body.write(chunk)) callback();
        else body.once('drain', () => callback());
      },
      final(callback) {
        body.end();
        done.then(() => callback(), (err: Error) => callback(err));
      },
      destroy(err, callback) {
        if (!body.writableFinished) {
          body.destroy();
          upload.abort().catch(() => undefined);
        }
        callback(err);
      },
    });
  }

  async openReadStream(key: string): Promise<{ stream: Readable; size?: number }> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
      return { stream: object.Body as Readable, size: object.ContentLength };
    } catch (err) {
      if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey' || (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) {
        throw new FileNotFoundError(key);
      }
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
  }
}
