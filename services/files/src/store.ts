// The object store, through the S3 API: any S3-compatible store, or the
// node's embedded one. Content streams through in both directions and is
// hashed (SHA-256) while it streams in; no file is ever held whole in memory
// (lib-storage's multipart upload keeps at most QUEUE_SIZE parts of PART_SIZE).
//
// An object's key is `<fileKey>_<fileHash>` (spec), which is known only once
// the last byte is in: the content goes to a temporary key first and is
// copied to its own key inside the store (a copy within the store moves no
// byte through this process), then the temporary object is deleted.
import { createHash, randomUUID } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PlatformError, type FilesConfig, type Logger } from '@platform/common';

/** S3's smallest part: what an upload holds is about (QUEUE_SIZE + 1) parts */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;
const TEMPORARY_PREFIX = 'incoming/';

export interface S3Settings {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  forcePathStyle: boolean;
}

/** The node's embedded object store (the launcher runs it on loopback). */
export function embeddedStoreUrl(port: number): string {
  return `http://127.0.0.1:${port}`;
}

/** The store FILES_S3_* name, or the embedded one. */
export function storeSettings(s3: FilesConfig['s3']): S3Settings {
  return { endpoint: s3.endpoint ?? embeddedStoreUrl(s3.embeddedPort), bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, region: s3.region, forcePathStyle: s3.forcePathStyle };
}

export interface StoredObject {
  key: string;
  /** the store held this key before (the same content under the same file key): it is not this upload's to delete */
  existed: boolean;
  /** SHA-256 of the content, 64 hex */
  hash: string;
  size: number;
}

export interface ObjectRead {
  body: Readable;
  /** bytes of this answer */
  length: number;
  /** the whole object's size */
  size: number;
}

/** Thrown into an upload stream to stop it: the client sent more than the node takes. */
export class TooLarge extends PlatformError {
  constructor(maxBytes: number) {
    super('BODY_TOO_LARGE', `the file exceeds the limit of ${maxBytes} bytes`, { limit: maxBytes });
  }
}

export class ObjectStore {
  readonly client: S3Client;

  constructor(
    readonly settings: S3Settings,
    private readonly logger: Logger,
  ) {
    this.client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      // the node streams its own bodies: no checksum pass over them beforehand
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  get bucket(): string {
    return this.settings.bucket;
  }

  /** The object's address at the store, as the legacy storage's `uri` names it. */
  uriOf(key: string): string {
    const base = this.settings.endpoint.replace(/\/+$/, '');
    return `${base}/${this.bucket}/${encodeKey(key)}`;
  }

  /** Creates the bucket when the store does not have it (the legacy storage's own bucket). */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      if (!isMissing(err)) throw this.unavailable(err);
      try {
        await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
        this.logger.info({ bucket: this.bucket }, 'created the bucket');
      } catch (created) {
        throw this.unavailable(created);
      }
    }
  }

  /**
   * Streams `source` into the store, hashing it on the way, under
   * `keyOf(hash)`. `source` may be destroyed with a TooLarge (or any) error
   * to stop it; nothing stays in the store then.
   */
  async put(source: Readable, keyOf: (hash: string) => string): Promise<StoredObject> {
    const digest = createHash('sha256');
    let size = 0;
    const collect = collector(UPLOAD_COLLECTION);
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        digest.update(chunk);
        size += chunk.length;
        collect(chunk.length);
        done(null, chunk);
      },
    });
    source.on('error', (err) => tap.destroy(err));
    source.pipe(tap);
    const temporary = `${TEMPORARY_PREFIX}${randomUUID()}`;
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: temporary, Body: tap }, partSize: PART_SIZE, queueSize: QUEUE_SIZE, leavePartsOnError: false });
    // the source's error (a client gone, a file too large) is the one to report, not the upload's view of it
    let sourceError: unknown = null;
    tap.on('error', (err) => {
      sourceError = err;
      void upload.abort().catch(() => {});
    });
    try {
      await upload.done();
    } catch (err) {
      await this.deleteQuietly(temporary);
      if (sourceError) throw sourceError;
      throw this.unavailable(err);
    }
    if (sourceError) {
      await this.deleteQuietly(temporary);
      throw sourceError;
    }
    const hash = digest.digest('hex');
    const key = keyOf(hash);
    let existed: boolean;
    try {
      existed = (await this.size(key)) !== null;
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: key, CopySource: `${this.bucket}/${encodeKey(temporary)}` }));
    } catch (err) {
      await this.deleteQuietly(temporary);
      throw this.unavailable(err);
    }
    await this.deleteQuietly(temporary);
    return { key, existed, hash, size };
  }

  /** The object's size, or null when the store does not hold it. */
  async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (err) {
      if (isMissing(err) && !isMissingBucket(err)) return null;
      throw this.unavailable(err);
    }
  }

  /** The object's content, or bytes `start`..`end` (inclusive) of it. */
  async read(key: string, range?: { start: number; end: number }): Promise<ObjectRead | null> {
    try {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
      const length = got.ContentLength ?? 0;
      const total = got.ContentRange ? Number(/\/(\d+)$/.exec(got.ContentRange)?.[1] ?? length) : length;
      const collect = collector(DOWNLOAD_COLLECTION);
      const body = (got.Body as Readable).pipe(
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            collect(chunk.length);
            done(null, chunk);
          },
        }),
      );
      return { body, length, size: total };
    } catch (err) {
      if (isMissing(err) && !isMissingBucket(err)) return null;
      throw this.unavailable(err);
    }
  }

  /** Deletes an object; a failure is logged, not thrown (the caller has a worse error to report). */
  async deleteQuietly(key: string): Promise<boolean> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (err) {
      this.logger.warn({ key, err: describe(err) }, 'could not delete an object from the object store; it stays there');
      return false;
    }
  }

  /** A store error as the client sees it: 503 naming what is wrong, never the credentials. */
  unavailable(err: unknown): PlatformError {
    if (err instanceof PlatformError) return err;
    if (isMissingBucket(err)) return new PlatformError('UNAVAILABLE', `the object store has no bucket "${this.bucket}": create it, or set FILES_S3_BUCKET to one it has`);
    this.logger.warn({ err: describe(err) }, 'the object store failed');
    if (err instanceof S3ServiceException) return new PlatformError('UNAVAILABLE', `the object store refused the request (${err.name}); retry, or see the files service's log`);
    return new PlatformError('UNAVAILABLE', `the object store at ${this.settings.endpoint} cannot be reached; retry`);
  }
}

type Collection = { every: number; type: 'full' | 'young' };

/**
 * An upload's garbage outlives the young generation: lib-storage keeps a
 * part's chunks until it has 5 MiB, then copies them into one buffer that
 * lives while the part is sent, so both are promoted, and only a full
 * collection frees them. Every 8 MiB moved, so that some 16 MiB of dead
 * buffers wait at most (the chunks and their copy); every 16 MiB, the peak
 * was some 15 MiB higher (npm run bench -- files.bench). It costs the upload
 * some 30% of its speed there (21 MiB/s against 30, on average over three
 * alternated runs), the price of staying under 150 MiB.
 */
const UPLOAD_COLLECTION: Collection = { every: 8 * 1024 * 1024, type: 'full' };
/**
 * A download's chunks go from the store's socket to the client's and die
 * young: a young collection frees them, in about a millisecond. A full one
 * every 8 MiB (tens of milliseconds each, the event loop stopped) held the
 * download to 28–48 MiB/s in the same bench, against 82–138 with these.
 */
const DOWNLOAD_COLLECTION: Collection = { every: 4 * 1024 * 1024, type: 'young' };

/**
 * The launcher starts the files service with --expose-gc. Bare `gc()` is a
 * precise full collection; `gc({type: 'major'})` is not one in Node 20 (a
 * millisecond where a full one takes tens) and frees few of the dead buffers:
 * with it every 4 MiB, an upload still had some 50 MiB of them.
 */
const gc = (globalThis as { gc?: (options?: { type: 'minor' }) => void }).gc;

/**
 * Counts the bytes a transfer moves and collects the heap every so many of
 * them, when the process may. The chunks a stream passes are garbage once
 * passed, but their bytes live outside V8's heap, which collects them on its
 * own only after some 64 MiB of them.
 */
function collector(collection: Collection): (bytes: number) => void {
  let moved = 0;
  return (bytes) => {
    moved += bytes;
    if (moved < collection.every || !gc) return;
    moved = 0;
    if (collection.type === 'young') gc({ type: 'minor' });
    else gc();
  };
}

/** A key in a URL path: each segment percent-encoded. */
export function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

function isMissingBucket(err: unknown): boolean {
  return err instanceof S3ServiceException && err.name === 'NoSuchBucket';
}

function isMissing(err: unknown): boolean {
  return err instanceof S3ServiceException && (err.$metadata?.httpStatusCode === 404 || err.name === 'NoSuchKey' || err.name === 'NotFound' || err.name === 'NoSuchBucket');
}

/** What a log line may say of an error: its name and message, never a request with its signature. */
function describe(err: unknown): { name: string; message: string } {
  return err instanceof Error ? { name: err.name, message: err.message } : { name: 'Error', message: String(err) };
}
