// The reference file application's eight routes (spec "Reference file
// application endpoints"; its error table in errors.ts). Who may do what:
// only a file's members see it — to anyone else it is the same 404 as a file
// that does not exist —, members add versions and attest, the owner shares,
// removes and transfers (the contract's 0 for anyone else is the spec's 400).
// `?chainid=<id>` puts a file on a private chain: only its members see it.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlatformError, type Logger } from '@platform/common';
import { FILE_APP_SOURCE, MEMBER_GRANT } from './contracts.js';
import { dataError, fileNotFound, messageError } from './errors.js';
import type { Done, Ledger, User } from './ledger.js';
import { readUpload } from './multipart.js';
import type { FileRecord, Records, Version } from './records.js';
import type { ObjectStore } from './store.js';
import { userOf } from './auth.js';

export interface FileRouteDeps {
  ledger: Ledger;
  records: Records;
  store: ObjectStore;
  logger: Logger;
  maxBytes: number;
  gasEnabled: boolean;
}

/** the upload's file part: `file`, or the reference client's `fileUpload` */
export const FILE_FIELDS = ['file', 'fileUpload'] as const;
/** how long a route waits for cirrus to show what its transaction did before it answers the record as cirrus has it */
const INDEX_WAIT_MS = 15_000;
const CHAIN_ID = /^(0x)?[0-9a-fA-F]{64}$/;
const ADDRESS = /^(0x)?[0-9a-fA-F]{40}$/;

type FileParams = { filekey: string };
type VersionParams = FileParams & { version: string };

export function chainIdOf(request: FastifyRequest): string {
  const given = (request.query as Record<string, unknown>).chainid;
  if (given === undefined || given === '') return '';
  if (typeof given !== 'string' || !CHAIN_ID.test(given)) throw new PlatformError('BAD_HEX', 'chainid must be a chain ID, 64 hex', { field: 'chainid' });
  return given.toLowerCase().replace(/^0x/, '');
}

function versionOf(params: VersionParams): number {
  if (!/^\d{1,15}$/.test(params.version)) throw dataError('BAD_REQUEST', `version must be a number, not "${params.version}"`, { field: 'version' });
  return Number(params.version);
}

function memberOf(body: unknown): string {
  const member = (body as { member?: unknown } | null | undefined)?.member;
  if (typeof member !== 'string' || !ADDRESS.test(member)) throw dataError('VALIDATION_FAILED', 'member must be an address, 40 hex', { field: 'member' });
  return member.toLowerCase().replace(/^0x/, '');
}

/** The name a file keeps: its last path segment, without control characters (a client may send a path). */
export function cleanName(filename: string): string {
  // eslint-disable-next-line no-control-regex
  const name = basename(filename.replace(/\\/g, '/')).replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return name === '' || name === '.' || name === '..' ? 'file' : name;
}

/** `<base name>_<version><extension>`, split at the last dot (`archive.tar.gz`, 1 → `archive.tar_1.gz`); a leading dot is no extension. */
export function downloadName(fileName: string, version: number): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? `${fileName.slice(0, dot)}_${version}${fileName.slice(dot)}` : `${fileName}_${version}`;
}

/** RFC 6266: a plain `filename` for every client, and `filename*` in UTF-8 when the name is not plain ASCII. */
export function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return ascii === name ? `attachment; filename="${name}"` : `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** A `Range` header's one range over `size` bytes; null to send it all (absent, several ranges, or not bytes); 'unsatisfiable' for 416. */
export function rangeOf(header: string | undefined, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

const hashOf = async (stream: Readable): Promise<string> => {
  const digest = createHash('sha256');
  for await (const chunk of stream) digest.update(chunk as Buffer);
  return digest.digest('hex');
};

export function fileRoutes(app: FastifyInstance, deps: FileRouteDeps): void {
  const { ledger, records, store } = deps;

  /** The caller's address, or null when they have no key (and so can be no member). */
  const addressOrNone = async (user: User, requestId: string): Promise<string | null> => {
    try {
      return await ledger.address(user, requestId);
    } catch (err) {
      if (err instanceof PlatformError && err.code === 'USER_NOT_FOUND') return null;
      throw err;
    }
  };

  /** The file's record and the caller's address when the caller is a member; the spec's 404 otherwise. */
  const visible = async (request: FastifyRequest<{ Params: FileParams }>): Promise<{ user: User; me: string; record: FileRecord; chainId: string }> => {
    const user = userOf(request);
    const chainId = chainIdOf(request);
    const fileKey = request.params.filekey;
    const [me, record] = await Promise.all([addressOrNone(user, request.id), records.record(user, fileKey, chainId, request.id)]);
    if (!record || me === null || !record.members.includes(me)) throw fileNotFound(fileKey);
    return { user, me, record, chainId };
  };

  const versionIn = (record: FileRecord, version: number): Version => {
    const found = record.versions.find((v) => v.version === version);
    if (!found) throw dataError('FILE_VERSION_NOT_FOUND', `Version ${version} of file ${record.fileKey} not found`, { versions: record.versions.length });
    return found;
  };

  /** Answers the file's record once cirrus shows what `done` created (cirrus indexes a block after it is applied). */
  const answer = async (reply: FastifyReply, request: FastifyRequest, user: User, fileKey: string, chainId: string, done: Done, contract: string, created = false): Promise<FastifyReply> => {
    const deadline = Date.now() + INDEX_WAIT_MS;
    while (!(await records.indexed(user, contract, done.created, chainId, request.id))) {
      if (Date.now() > deadline) {
        request.log.warn({ hash: done.hash, contract }, 'cirrus did not show the transaction in time; answering the record as it is');
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const record = await records.record(user, fileKey, chainId, request.id);
    if (!record) throw new PlatformError('INTERNAL', `the file ${fileKey} is not in cirrus after its transaction ${done.hash}`);
    // a new file whose key another upload took in the same millisecond: that file is not this one, nor the caller's to see
    if (created && !done.created.includes(record.address)) throw new PlatformError('FILE_KEY_TAKEN', `another file took the key ${fileKey} in the same millisecond; upload again`, { fileKey });
    return reply.send({ success: true, data: record });
  };

  /** The content goes to the store first; a transaction that then fails leaves no object behind (unless another record uses it). */
  const storeThenSend = async <T>(fileKey: string, stored: { key: string; existed: boolean }, send: () => Promise<T>): Promise<T> => {
    try {
      return await send();
    } catch (err) {
      if (!stored.existed) {
        const deleted = await store.deleteQuietly(stored.key);
        deps.logger.warn({ fileKey, key: stored.key, deleted }, deleted ? 'the transaction failed: its object is deleted' : 'the transaction failed: its object is left in the store');
      }
      throw err;
    }
  };

  const upload = async (request: FastifyRequest, fileKeyOf: (filename: string) => string) =>
    readUpload(request.raw, {
      fileFields: FILE_FIELDS,
      maxBytes: deps.maxBytes,
      onFile: async (stream, info) => {
        const fileName = cleanName(info.filename);
        const fileKey = fileKeyOf(fileName);
        const stored = await store.put(stream, (hash) => `${fileKey}_${hash}`);
        return { fileName, fileKey, ...stored };
      },
    });

  app.post('/api/v1/files', async (request, reply) => {
    const user = userOf(request);
    const chainId = chainIdOf(request);
    // a user without a key cannot send the transaction: refused before the content is stored
    await ledger.address(user, request.id);
    const { fields, file } = await upload(request, (name) => `${Date.now()}_${name}`);
    const stored = file.result;
    const done = await storeThenSend(stored.fileKey, stored, () =>
      ledger.create(
        user,
        chainId,
        'FileManager',
        FILE_APP_SOURCE,
        { _fileKey: stored.fileKey, _fileName: stored.fileName, _fileDescription: fields.fileDescription ?? '', _comments: fields.comments ?? '', _fileHash: stored.hash, _uri: store.uriOf(stored.key) },
        request.id,
      ),
    );
    return answer(reply, request, user, stored.fileKey, chainId, done, 'FileManager', true);
  });

  // beyond the spec: the caller's files, for the page
  app.get('/api/v1/files', async (request) => {
    const user = userOf(request);
    const chainId = chainIdOf(request);
    const me = await addressOrNone(user, request.id);
    return { success: true, data: me === null ? [] : await records.list(user, me, chainId, request.id) };
  });

  app.get<{ Params: FileParams }>('/api/v1/files/:filekey', async (request) => {
    const { record } = await visible(request);
    return { success: true, data: record };
  });

  app.post<{ Params: FileParams }>('/api/v1/files/:filekey/versions', async (request, reply) => {
    const { user, record, chainId } = await visible(request);
    const { fields, file } = await upload(request, () => record.fileKey);
    const stored = file.result;
    const done = await storeThenSend(record.fileKey, stored, () =>
      ledger.invoke(user, chainId, record.address, { method: 'addFileVersion', args: { _fileHash: stored.hash, _comments: fields.comments ?? '', _uri: store.uriOf(stored.key) } }, request.id),
    );
    return answer(reply, request, user, record.fileKey, chainId, done, 'ExternalFile');
  });

  app.get<{ Params: VersionParams }>('/api/v1/files/:filekey/versions/:version', async (request, reply) => {
    const number = versionOf(request.params);
    const { record } = await visible(request);
    const version = versionIn(record, number);
    const key = `${record.fileKey}_${version.fileHash}`;
    const size = await store.size(key);
    if (size === null) throw new PlatformError('UNAVAILABLE', `the object store does not hold the content of version ${number} of ${record.fileKey}`);
    const range = rangeOf(request.headers.range, size);
    reply.header('content-type', 'application/octet-stream').header('content-disposition', contentDisposition(downloadName(record.fileName, number))).header('accept-ranges', 'bytes');
    if (range === 'unsatisfiable') {
      reply.header('content-range', `bytes */${size}`);
      throw new PlatformError('RANGE_NOT_SATISFIABLE', `the range ${request.headers.range} is outside the file's ${size} bytes`, { size });
    }
    const read = await store.read(key, range ?? undefined);
    if (!read) throw new PlatformError('UNAVAILABLE', `the object store does not hold the content of version ${number} of ${record.fileKey}`);
    reply.header('content-length', String(read.length)).header('etag', `"${version.fileHash}"`);
    if (range) reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`);
    return reply.send(read.body);
  });

  app.post<{ Params: VersionParams }>('/api/v1/files/:filekey/versions/:version/attest', async (request, reply) => {
    const number = versionOf(request.params);
    const { user, record, chainId } = await visible(request);
    const version = versionIn(record, number);
    const { file } = await readUpload(request.raw, { fileFields: FILE_FIELDS, maxBytes: deps.maxBytes, onFile: (stream) => hashOf(stream) });
    if (file.result !== version.fileHash) {
      throw messageError('BAD_REQUEST', `Attestation failed: the uploaded file's SHA-256 ${file.result} is not version ${number}'s ${version.fileHash}`, { field: 'file' });
    }
    const done = await ledger.invoke(user, chainId, record.address, { method: 'attest', args: { version: number } }, request.id);
    if (done.returned[0] !== '1') throw messageError('INTERNAL', 'Attestation failed for an unknown reason: the contract refused it; report the request id', { hash: done.hash });
    return answer(reply, request, user, record.fileKey, chainId, done, 'Attestation');
  });

  /** share, remove or transferOwnership: the contract's 0 is the spec's 400. */
  const ownerCall = async (request: FastifyRequest<{ Params: FileParams }>, reply: FastifyReply, method: 'share' | 'remove' | 'transferOwnership') => {
    const member = memberOf(request.body);
    const { user, record, chainId } = await visible(request);
    if (method === 'share' && record.members.includes(member)) throw messageError('BAD_REQUEST', `Invalid member: ${member} is a member of ${record.fileKey} already`, { field: 'member' });
    if (method === 'remove' && !record.members.includes(member)) throw messageError('BAD_REQUEST', `Invalid member: ${member} is not a member of ${record.fileKey}`, { field: 'member' });
    if (method === 'transferOwnership' && record.owner === member) throw messageError('BAD_REQUEST', `Invalid member: ${member} owns ${record.fileKey} already`, { field: 'member' });
    const args = method === 'remove' ? { member } : method === 'share' ? { member, enode: '' } : { newOwner: member, enode: '' };
    // with gas on, a member who holds no tokens gets MEMBER_GRANT through the manager (contracts.ts), paid by the owner
    const grant = method !== 'remove' && deps.gasEnabled && (await ledger.balance(user, member, chainId, request.id)) === 0n;
    const done = await ledger.invoke(user, chainId, record.address, { method, args, ...(grant ? { value: MEMBER_GRANT } : {}) }, request.id);
    if (done.returned[0] !== '1') {
      throw messageError('BAD_REQUEST', `Invalid member or missing permission: only the owner of ${record.fileKey} may ${method === 'transferOwnership' ? 'transfer it' : `${method} members`}`, { hash: done.hash });
    }
    return answer(reply, request, user, record.fileKey, chainId, done, 'Membership');
  };
  app.post<{ Params: FileParams }>('/api/v1/files/:filekey/members', (request, reply) => ownerCall(request, reply, 'share'));
  app.delete<{ Params: FileParams }>('/api/v1/files/:filekey/members', (request, reply) => ownerCall(request, reply, 'remove'));
  app.post<{ Params: FileParams }>('/api/v1/files/:filekey/transfer', (request, reply) => ownerCall(request, reply, 'transferOwnership'));
}
