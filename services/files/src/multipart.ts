// Multipart uploads, streamed (busboy): the file part goes to `onFile` as a
// stream while the request arrives; text fields may come before or after it.
// The file part is `file`, or `fileUpload` (the reference client's name).
import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import busboy from 'busboy';
import { PlatformError } from '@platform/common';
import { messageError } from './errors.js';
import { TooLarge } from './store.js';

export interface UploadOptions<T> {
  /** names the file part may have, the first one present wins */
  fileFields: readonly string[];
  maxBytes: number;
  /** consumes the file's stream (it must read it to its end, or destroy it) */
  onFile: (stream: Readable, info: { filename: string; mimeType: string }) => Promise<T>;
}

export interface Upload<T> {
  fields: Record<string, string>;
  file: { filename: string; result: T };
}

const MAX_FIELDS = 32;
const MAX_FIELD_BYTES = 64 * 1024;

export const MISSING_FILE = 'Missing file';

const missingFile = () => messageError('BAD_REQUEST', MISSING_FILE, { field: 'file' });

/** Whether the request says it carries form data at all. */
export function isMultipart(request: IncomingMessage): boolean {
  return /^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '');
}

/**
 * Reads a multipart request to its end. No file part (or a body that is no
 * form) is the spec's 400 `Missing file`; a file over `maxBytes` is 413, and
 * what `onFile` had started is stopped by destroying its stream.
 */
export async function readUpload<T>(request: IncomingMessage, options: UploadOptions<T>): Promise<Upload<T>> {
  if (!isMultipart(request)) {
    request.resume();
    throw missingFile();
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: request.headers, limits: { fileSize: options.maxBytes, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FIELDS + 8 } });
  } catch (err) {
    request.resume();
    throw new PlatformError('BAD_REQUEST', `the form data cannot be read: ${(err as Error).message}`);
  }
  return new Promise<Upload<T>>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let file: { filename: string; promise: Promise<T> } | null = null;
    let failed: PlatformError | null = null;
    let current: Readable | null = null;
    const fail = (error: PlatformError) => {
      failed ??= error;
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new PlatformError('VALIDATION_FAILED', `the field ${name} is over ${MAX_FIELD_BYTES} bytes`, { field: name }));
      else fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (file || failed || !options.fileFields.includes(name) || !info.filename) {
        stream.resume();
        return;
      }
      // the consumer reads its own stream: busboy's is never stopped under it, so the form is always read to its end
      const body = new PassThrough();
      current = body;
      stream.pipe(body);
      const release = () => {
        stream.unpipe(body);
        stream.resume();
      };
      stream.on('limit', () => {
        const error = new TooLarge(options.maxBytes);
        fail(error);
        release();
        body.destroy(error);
      });
      const promise = options.onFile(body, { filename: info.filename, mimeType: info.mimeType });
      // settled in finish(); a consumer that gives up (the store failed) lets the rest of the form be read
      promise.catch(release);
      file = { filename: info.filename, promise };
    });
    parser.on('partsLimit', () => fail(new PlatformError('VALIDATION_FAILED', `the form has more than ${MAX_FIELDS + 8} parts`)));
    parser.on('fieldsLimit', () => fail(new PlatformError('VALIDATION_FAILED', `the form has more than ${MAX_FIELDS} fields`)));
    const finish = async () => {
      if (!file) return reject(failed ?? missingFile());
      try {
        const result = await file.promise;
        if (failed) return reject(failed);
        resolve({ fields, file: { filename: file.filename, result } });
      } catch (err) {
        reject(failed ?? err);
      }
    };
    parser.on('close', () => void finish());
    // a broken form or a client gone: the file being stored stops with that error, and the request fails with it
    const abandon = (error: PlatformError) => {
      fail(error);
      request.unpipe(parser);
      request.resume();
      current?.destroy(error);
      if (!file) reject(error);
      else file.promise.then(() => reject(error), () => reject(error));
    };
    parser.on('error', (err: Error) => abandon(new PlatformError('BAD_REQUEST', `the form data cannot be read: ${err.message}`)));
    request.on('aborted', () => abandon(new PlatformError('BAD_REQUEST', 'the client closed the request before its end')));
    request.pipe(parser);
  });
}
