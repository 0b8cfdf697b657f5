// The legacy file storage (spec "File-storage endpoints (removed in release
// 7.5)" and the `ExternalStorage` contract), as the platform's own storage
// service had it, under `/apex-api/bloc/file`. On only when
// EXT_STORAGE_OBJ_BUCKET and its two keys are set (one storage account per
// node); the bucket is in EXT_STORAGE_OBJ_ENDPOINT's store, else in the
// node's own (the embedded one by default), and is made when missing.
//
// - upload: multipart, the file in part `content`, fields `provider` and
//   `metadata` → `{contractAddress, fileKey, uri, metadata}`; the uploader
//   is the contract's creator, its first signer.
// - list?limit&offset → `{list: [{contractAddress, hash, fileKey, uri, createdAt}]}`, oldest first.
// - download?contractAddress → `{url}`: a node URL usable once, without a
//   token, behind which the node remembers a presigned URL of the object; the
//   node streams the object through it and forgets it.
// - attest `{contractAddress}` → `{attested: true, signers}`; verify?contractAddress → `{uri, timeStamp, signers}`.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PlatformError, type Logger } from '@platform/common';
import { userOf } from './auth.js';
import { num, text, type CirrusReader } from './cirrus.js';
import { EXTERNAL_STORAGE_SOURCE } from './contracts.js';
import type { Ledger, User } from './ledger.js';
import { readUpload } from './multipart.js';
import { cleanName, contentDisposition } from './routes.js';
import type { ObjectStore } from './store.js';

export const LEGACY_PREFIX = '/apex-api/bloc/file';
/**
 * The one-time download path, outside the bearer-token check: its `token`
 * query parameter is the credential, and a query string is what no request
 * log line keeps.
 */
export const LEGACY_CONTENT_PATH = `${LEGACY_PREFIX}/content`;

const STORAGE = { src: EXTERNAL_STORAGE_SOURCE, contract: 'ExternalStorage' };
/** how long a download URL (and the presigned URL behind it) stays usable */
const DOWNLOAD_TTL_S = 600;
const MAX_PENDING_DOWNLOADS = 10_000;
const INDEX_WAIT_MS = 15_000;
const ADDRESS = /^(0x)?[0-9a-fA-F]{40}$/;
const MAX_LIST = 1000;

export interface LegacyDeps {
  ledger: Ledger;
  cirrus: CirrusReader;
  /** null: off (EXT_STORAGE_OBJ_* unset) */
  store: ObjectStore | null;
  logger: Logger;
  maxBytes: number;
}

const off = () =>
  new PlatformError('FILE_STORAGE_OFF', 'the file storage is off on this node: set EXT_STORAGE_OBJ_BUCKET, EXT_STORAGE_OBJ_ACCESS_KEY_ID and EXT_STORAGE_OBJ_SECRET_ACCESS_KEY (and EXT_STORAGE_OBJ_ENDPOINT for a store of your own) to turn it on');

function addressOf(value: unknown, field = 'contractAddress'): string {
  if (typeof value !== 'string' || !ADDRESS.test(value)) throw new PlatformError('VALIDATION_FAILED', `${field} must be an address, 40 hex`, { field });
  return value.toLowerCase().replace(/^0x/, '');
}

function boundedInt(value: unknown, field: string, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value) || Number(value) > max) throw new PlatformError('VALIDATION_FAILED', `${field} must be an integer from 0 to ${max}`, { field });
  return Number(value);
}

/** Where the client reached the node: the gateway says so in x-forwarded-host / -proto. */
function publicBase(request: FastifyRequest): string {
  const host = request.headers['x-forwarded-host'] ?? request.headers.host;
  const proto = request.headers['x-forwarded-proto'] ?? 'http';
  return `${String(proto).split(',')[0]}://${String(host).split(',')[0]}`;
}

export function legacyRoutes(app: FastifyInstance, deps: LegacyDeps): void {
  const { ledger, cirrus } = deps;
  /** the bucket is made once, at first use; a failure is tried again by the next request */
  let bucketReady: Promise<void> | null = null;
  const storage = async (): Promise<ObjectStore> => {
    const store = deps.store;
    if (!store) throw off();
    bucketReady ??= store.ensureBucket().catch((err: unknown) => {
      bucketReady = null;
      throw err;
    });
    await bucketReady;
    return store;
  };
  /** download tokens → the presigned URL and the name, until used or expired */
  const downloads = new Map<string, { url: string; name: string; until: number }>();

  /** The ExternalStorage contract at this address, when it runs the contract's code. */
  const contract = async (user: User, address: string, requestId: string) => {
    const [row] = await cirrus.contractsAt(user, 'ExternalStorage', [address], '', requestId);
    if (!row || !(await cirrus.runs(user, STORAGE, address, '', requestId))) throw new PlatformError('STORAGE_CONTRACT_NOT_FOUND', `no file storage contract at ${address}`, { field: 'contractAddress' });
    return row;
  };
  const signersOf = async (user: User, address: string, requestId: string) => (await cirrus.elements(user, 'ExternalStorage', 'signers', [address], '', requestId)).get(address) ?? [];

  app.post(`${LEGACY_PREFIX}/upload`, async (request) => {
    const user = userOf(request);
    const store = await storage();
    await ledger.address(user, request.id);
    const { fields, file } = await readUpload(request.raw, {
      fileFields: ['content'],
      maxBytes: deps.maxBytes,
      onFile: async (stream, info) => {
        const fileKey = `${Date.now()}_${cleanName(info.filename)}`;
        // under its content's hash too, as the file application's: two uploads of one name in one millisecond keep both
        return { fileKey, ...(await store.put(stream, (hash) => `${fileKey}_${hash}`)) };
      },
    });
    const stored = file.result;
    const metadata = fields.metadata ?? '';
    const uri = store.uriOf(stored.key);
    let done;
    try {
      done = await ledger.create(user, '', 'ExternalStorage', EXTERNAL_STORAGE_SOURCE, { _fileKey: stored.fileKey, _uri: uri, _host: new URL(store.settings.endpoint).host, _hash: stored.hash, _metadata: metadata }, request.id);
    } catch (err) {
      const deleted = await store.deleteQuietly(stored.key);
      deps.logger.warn({ key: stored.key, deleted }, deleted ? 'the transaction failed: its object is deleted' : 'the transaction failed: its object is left in the store');
      throw err;
    }
    const contractAddress = done.created[0]!;
    // answered once cirrus shows it, so that list, verify and download find it at once
    const deadline = Date.now() + INDEX_WAIT_MS;
    while ((await cirrus.contractsAt(user, 'ExternalStorage', [contractAddress], '', request.id)).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return { contractAddress, fileKey: stored.fileKey, uri, metadata };
  });

  app.get(`${LEGACY_PREFIX}/list`, async (request) => {
    const user = userOf(request);
    await storage();
    const query = request.query as Record<string, unknown>;
    const limit = boundedInt(query.limit, 'limit', 100, MAX_LIST);
    const offset = boundedInt(query.offset, 'offset', 0, 1_000_000);
    // every family's first offset+limit rows, merged oldest first, then the page
    const rows = await cirrus.across(user, 'ExternalStorage', (f) => f, `chainId=eq.&select=address,fileHash,fileKey,uri,timeStamp&order=timeStamp.asc,address.asc&limit=${offset + limit}`, request.id);
    rows.sort((a, b) => num(a.timeStamp) - num(b.timeStamp) || text(a.address).localeCompare(text(b.address)));
    const genuine = [];
    for (const row of rows) if (await cirrus.runs(user, STORAGE, text(row.address), '', request.id)) genuine.push(row);
    const list = genuine.slice(offset, offset + limit).map((r) => ({ contractAddress: text(r.address), hash: text(r.fileHash), fileKey: text(r.fileKey), uri: text(r.uri), createdAt: num(r.timeStamp) }));
    return { list };
  });

  app.get(`${LEGACY_PREFIX}/download`, async (request) => {
    const user = userOf(request);
    const store = await storage();
    const address = addressOf((request.query as Record<string, unknown>).contractAddress);
    const row = await contract(user, address, request.id);
    const fileKey = text(row.fileKey);
    const key = `${fileKey}_${text(row.fileHash)}`;
    if ((await store.size(key)) === null) throw new PlatformError('UNAVAILABLE', `the object store does not hold the content of ${address}`);
    const url = await getSignedUrl(store.client, new GetObjectCommand({ Bucket: store.bucket, Key: key }), { expiresIn: DOWNLOAD_TTL_S });
    const now = Date.now();
    for (const [token, d] of downloads) if (d.until < now || downloads.size >= MAX_PENDING_DOWNLOADS) downloads.delete(token);
    const token = randomBytes(32).toString('hex');
    downloads.set(token, { url, name: fileKey.slice(fileKey.indexOf('_') + 1), until: now + DOWNLOAD_TTL_S * 1000 });
    return { url: `${publicBase(request)}${LEGACY_CONTENT_PATH}?token=${token}` };
  });

  app.get<{ Querystring: { token?: unknown } }>(LEGACY_CONTENT_PATH, async (request, reply) => {
    const token = typeof request.query.token === 'string' ? request.query.token : '';
    const download = downloads.get(token);
    // used once: forgotten before the first byte goes out
    downloads.delete(token);
    if (!download || download.until < Date.now()) throw new PlatformError('DOWNLOAD_EXPIRED', 'this download URL was used already or has expired; ask for another one');
    let response: Response;
    try {
      response = await fetch(download.url);
    } catch {
      throw new PlatformError('UNAVAILABLE', 'the object store cannot be reached; ask for another download URL');
    }
    if (!response.ok || !response.body) throw new PlatformError('UNAVAILABLE', `the object store answered ${response.status}; ask for another download URL`);
    reply.header('content-type', 'application/octet-stream').header('content-disposition', contentDisposition(download.name));
    const length = response.headers.get('content-length');
    if (length) reply.header('content-length', length);
    return reply.send(Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]));
  });

  app.post(`${LEGACY_PREFIX}/attest`, async (request) => {
    const user = userOf(request);
    await storage();
    const address = addressOf((request.body as Record<string, unknown> | undefined)?.contractAddress);
    await contract(user, address, request.id);
    const done = await ledger.invoke(user, '', address, { method: 'attest', args: {} }, request.id);
    const signers = (JSON.parse(done.returned[0] ?? '[]') as string[]).map((s) => s.toLowerCase());
    // answered once cirrus shows the new signer, so that verify agrees at once
    const deadline = Date.now() + INDEX_WAIT_MS;
    while ((await signersOf(user, address, request.id)).length < signers.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return { attested: true, signers };
  });

  app.get(`${LEGACY_PREFIX}/verify`, async (request) => {
    const user = userOf(request);
    await storage();
    const address = addressOf((request.query as Record<string, unknown>).contractAddress);
    const [row, signers] = await Promise.all([contract(user, address, request.id), signersOf(user, address, request.id)]);
    return { uri: text(row.uri), timeStamp: num(row.timeStamp), signers };
  });
}
