// The reference file application end to end (`/api/v1/files`, issue
// "Files"): a whole node with its files service and embedded object store;
// every route, every row of the spec's error table, who may do what, a file
// on a private chain, and a store that is gone.
import { createHash } from 'node:crypto';
import { DeleteBucketCommand, DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { AUTO_APPROVE_SOURCE } from '@platform/chains';
import { api, devToken, startTestNode, type TestNode } from './harness.js';

const NODE_START_MS = 180_000;

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

describe('the file application', () => {
  let node: TestNode;
  const tokens: Record<string, string> = {};
  const addresses: Record<string, string> = {};
  const v1 = Buffer.from('the first draft of the report\n');
  const v2 = Buffer.from('the second draft, with the figures\n'.repeat(1000));
  let fileKey: string;

  beforeAll(async () => {
    node = await startTestNode();
    for (const [user, org] of [['alice', 'Acme'], ['bob', 'Beta'], ['carol', 'Carol'], ['dave', 'Acme']]) {
      tokens[user] = await devToken(node, user, org);
      if (user === 'dave') continue; // dave never makes a key
      const key = await api(node, 'POST', '/platform/v2.3/key', tokens[user]);
      expect(key.status).toBe(200);
      addresses[user] = key.body.address;
    }
  }, NODE_START_MS);
  afterAll(async () => {
    await node?.destroy();
  });

  const send = async (user: string, method: string, path: string, body?: FormData | Record<string, unknown>, headers: Record<string, string> = {}): Promise<Answer> => {
    const json = body !== undefined && !(body instanceof FormData);
    const response = await fetch(`${node.gatewayUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${tokens[user]}`, ...(json ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body === undefined ? {} : { body: json ? JSON.stringify(body) : (body as FormData) }),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    let parsed: unknown = bytes;
    if ((response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(bytes.toString('utf8'));
    return { status: response.status, headers: response.headers, body: parsed };
  };
  /** a form with the file in `part` and text fields before and after it */
  const form = (content: Buffer | null, name: string, fields: Record<string, string> = {}, part = 'file') => {
    const data = new FormData();
    const entries = Object.entries(fields);
    for (const [k, v] of entries.slice(0, 1)) data.append(k, v);
    if (content) data.append(part, new Blob([content]), name);
    for (const [k, v] of entries.slice(1)) data.append(k, v);
    return data;
  };
  const path = (key: string, rest = '') => `/api/v1/files/${encodeURIComponent(key)}${rest}`;
  const expectDataError = (answer: Answer, status: number, code: string) => {
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ success: false, data: expect.any(String), error: { code, message: answer.body.data, requestId: expect.any(String) } });
  };
  const expectMessageError = (answer: Answer, status: number, code: string, message: RegExp | string) => {
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ success: false, message: typeof message === 'string' ? message : expect.stringMatching(message), error: { code } });
  };

  test('upload: the record with version 1, the owner its only member; the object under <fileKey>_<hash>', async () => {
    const uploaded = await send('alice', 'POST', '/api/v1/files/', form(v1, 'report draft.txt', { fileDescription: 'the quarterly report', comments: 'first draft' }));
    expect(uploaded.status).toBe(200);
    const record = uploaded.body.data;
    expect(uploaded.body.success).toBe(true);
    fileKey = record.fileKey;
    expect(fileKey).toMatch(/^\d{13}_report draft\.txt$/);
    expect(record).toMatchObject({
      fileName: 'report draft.txt',
      fileDescription: 'the quarterly report',
      owner: addresses.alice,
      members: [addresses.alice],
      chainId: '',
      versions: [{ version: 1, fileHash: sha256(v1), comments: 'first draft', uploadedBy: addresses.alice, attestations: [] }],
    });
    expect(record.auditLog.map((e: { action: string }) => e.action)).toEqual(['MEMBER_ADDED', 'VERSION_ADDED']);
    const s3 = new S3Client({ endpoint: `http://127.0.0.1:${node.config.files.s3.embeddedPort}`, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'files' }));
    // the temporary object of the upload is gone
    expect(listed.Contents?.map((o) => o.Key)).toEqual([`${fileKey}_${sha256(v1)}`]);
    // the reference client's part name; the contract's table in cirrus
    const other = await send('carol', 'POST', '/api/v1/files', form(Buffer.from('x'), 'a/b/../notes', {}, 'fileUpload'));
    expect(other.status).toBe(200);
    expect(other.body.data).toMatchObject({ fileName: 'notes', fileDescription: '', owner: addresses.carol });
    const rows = await api(node, 'GET', `/cirrus/search/FileManager?select=fileKey&fileKey=eq.${encodeURIComponent(fileKey)}`, tokens.alice);
    expect(rows.status).toBe(409); // two organizations' tables: Acme-FileManager and Carol-FileManager
    expect((await api(node, 'GET', `/cirrus/search/Acme-FileManager?select=fileKey,numVersions&fileKey=eq.${encodeURIComponent(fileKey)}`, tokens.alice)).body).toEqual([{ fileKey, numVersions: 1 }]);
  });

  test('no uploaded file: 400 Missing file; a user without a key cannot upload', async () => {
    expectMessageError(await send('alice', 'POST', '/api/v1/files', { fileDescription: 'no file' }), 400, 'BAD_REQUEST', 'Missing file');
    expectMessageError(await send('alice', 'POST', '/api/v1/files', form(null, '', { fileDescription: 'fields only', comments: 'x' })), 400, 'BAD_REQUEST', 'Missing file');
    expectMessageError(await send('alice', 'POST', '/api/v1/files', form(v1, 'wrong part', {}, 'document')), 400, 'BAD_REQUEST', 'Missing file');
    expect((await send('dave', 'POST', '/api/v1/files', form(v1, 'x.txt'))).status).toBe(400);
    const anonymous = await fetch(`${node.gatewayUrl}/api/v1/files`, { method: 'POST', body: form(v1, 'x.txt') });
    expect(anonymous.status).toBe(401);
  });

  test('the legacy file storage is off without EXT_STORAGE_OBJ_*: 404 naming the variables', async () => {
    const off = await send('alice', 'GET', '/apex-api/bloc/file/list');
    expect(off.status).toBe(404);
    expect(off.body.error.message).toMatch(/EXT_STORAGE_OBJ_BUCKET, EXT_STORAGE_OBJ_ACCESS_KEY_ID and EXT_STORAGE_OBJ_SECRET_ACCESS_KEY/);
  });

  test('the record: members only; anyone else gets the 404 of a file that does not exist', async () => {
    const read = await send('alice', 'GET', path(fileKey));
    expect(read.status).toBe(200);
    expect(read.body.data.fileKey).toBe(fileKey);
    const missing = await send('alice', 'GET', path('1_nothing.txt'));
    expectDataError(missing, 404, 'FILE_NOT_FOUND');
    for (const user of ['bob', 'dave']) {
      const hidden = await send(user, 'GET', path(fileKey));
      expectDataError(hidden, 404, 'FILE_NOT_FOUND');
      expect(hidden.body.data).toBe(`File ${fileKey} not found`);
    }
    expect(missing.body.data).toBe('File 1_nothing.txt not found');
  });

  test('a version; downloads with their name, length and ranges; a bad or unknown version', async () => {
    const added = await send('alice', 'POST', path(fileKey, '/versions'), form(v2, 'anything.bin', { comments: 'with figures' }));
    expect(added.status).toBe(200);
    expect(added.body.data.versions.map((v: { version: number; fileHash: string }) => [v.version, v.fileHash])).toEqual([
      [1, sha256(v1)],
      [2, sha256(v2)],
    ]);
    expectMessageError(await send('alice', 'POST', path(fileKey, '/versions'), { comments: 'none' }), 400, 'BAD_REQUEST', 'Missing file');
    expectDataError(await send('bob', 'POST', path(fileKey, '/versions'), form(v2, 'x')), 404, 'FILE_NOT_FOUND');

    const first = await send('alice', 'GET', path(fileKey, '/versions/1'));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-disposition')).toBe('attachment; filename="report draft_1.txt"');
    expect(first.headers.get('content-length')).toBe(String(v1.length));
    expect(first.body).toEqual(v1);
    const second = await send('alice', 'GET', path(fileKey, '/versions/2'));
    expect(second.body).toEqual(v2);
    const part = await send('alice', 'GET', path(fileKey, '/versions/2'), undefined, { range: 'bytes=4-9' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 4-9/${v2.length}`);
    expect(part.body).toEqual(v2.subarray(4, 10));
    const tail = await send('alice', 'GET', path(fileKey, '/versions/2'), undefined, { range: 'bytes=-5' });
    expect(tail.body).toEqual(v2.subarray(v2.length - 5));
    const outside = await send('alice', 'GET', path(fileKey, '/versions/2'), undefined, { range: `bytes=${v2.length}-` });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe(`bytes */${v2.length}`);

    expectDataError(await send('alice', 'GET', path(fileKey, '/versions/two')), 400, 'BAD_REQUEST');
    expectDataError(await send('alice', 'GET', path(fileKey, '/versions/3')), 404, 'FILE_VERSION_NOT_FOUND');
    expectDataError(await send('alice', 'GET', path(fileKey, '/versions/0')), 404, 'FILE_VERSION_NOT_FOUND');
    expectDataError(await send('bob', 'GET', path(fileKey, '/versions/1')), 404, 'FILE_NOT_FOUND');
  });

  test('share: a valid address, the owner only (the contract answers 0 otherwise), not twice', async () => {
    expectDataError(await send('alice', 'POST', path(fileKey, '/members'), { member: 'bob' }), 400, 'VALIDATION_FAILED');
    expectDataError(await send('alice', 'POST', path(fileKey, '/members'), {}), 400, 'VALIDATION_FAILED');
    expectDataError(await send('alice', 'POST', path(fileKey, '/members'), undefined), 400, 'VALIDATION_FAILED');
    expectDataError(await send('bob', 'POST', path(fileKey, '/members'), { member: addresses.bob }), 404, 'FILE_NOT_FOUND');
    const shared = await send('alice', 'POST', path(fileKey, '/members'), { member: `0x${addresses.bob!.toUpperCase()}` });
    expect(shared.status).toBe(200);
    expect(shared.body.data.members).toEqual([addresses.alice, addresses.bob]);
    expectMessageError(await send('alice', 'POST', path(fileKey, '/members'), { member: addresses.bob }), 400, 'BAD_REQUEST', /already/);
    // bob is a member now, not the owner: the contract's 0
    expectMessageError(await send('bob', 'POST', path(fileKey, '/members'), { member: addresses.carol }), 400, 'BAD_REQUEST', /Invalid member or missing permission/);
    expectMessageError(await send('bob', 'DELETE', path(fileKey, '/members'), { member: addresses.alice }), 400, 'BAD_REQUEST', /Invalid member or missing permission/);
    expectMessageError(await send('bob', 'POST', path(fileKey, '/transfer'), { member: addresses.bob }), 400, 'BAD_REQUEST', /Invalid member or missing permission/);
  });

  test('a member downloads and attests; a file of other content fails the attestation', async () => {
    const downloaded = await send('bob', 'GET', path(fileKey, '/versions/2'));
    expect(downloaded.body).toEqual(v2);
    expectMessageError(await send('bob', 'POST', path(fileKey, '/versions/2/attest'), form(v1, 'other')), 400, 'BAD_REQUEST', /^Attestation failed/);
    expectMessageError(await send('bob', 'POST', path(fileKey, '/versions/2/attest'), { none: true }), 400, 'BAD_REQUEST', 'Missing file');
    expectDataError(await send('bob', 'POST', path(fileKey, '/versions/x/attest'), form(v2, 'd')), 400, 'BAD_REQUEST');
    expectDataError(await send('bob', 'POST', path(fileKey, '/versions/7/attest'), form(v2, 'd')), 404, 'FILE_VERSION_NOT_FOUND');
    expectDataError(await send('carol', 'POST', path(fileKey, '/versions/2/attest'), form(v2, 'd')), 404, 'FILE_NOT_FOUND');
    const attested = await send('bob', 'POST', path(fileKey, '/versions/2/attest'), form(downloaded.body, 'download.txt'));
    expect(attested.status).toBe(200);
    expect(attested.body.data.versions[1].attestations).toEqual([{ attestor: addresses.bob, timestamp: expect.any(Number) }]);
  });

  test('transfer: the new owner; the previous one stays a member (sharing is then a 400, not a 404) until removed', async () => {
    expectDataError(await send('alice', 'POST', path(fileKey, '/transfer'), { member: '12' }), 400, 'VALIDATION_FAILED');
    const transferred = await send('alice', 'POST', path(fileKey, '/transfer'), { member: addresses.bob });
    expect(transferred.status).toBe(200);
    expect(transferred.body.data).toMatchObject({ owner: addresses.bob, members: [addresses.bob, addresses.alice] });
    expectMessageError(await send('alice', 'POST', path(fileKey, '/members'), { member: addresses.carol }), 400, 'BAD_REQUEST', /Invalid member or missing permission/);
    expectMessageError(await send('bob', 'DELETE', path(fileKey, '/members'), { member: addresses.carol }), 400, 'BAD_REQUEST', /not a member/);
    expectDataError(await send('bob', 'DELETE', path(fileKey, '/members'), { member: 'x' }), 400, 'VALIDATION_FAILED');
    const removed = await send('bob', 'DELETE', path(fileKey, '/members'), { member: addresses.alice });
    expect(removed.status).toBe(200);
    expect(removed.body.data.members).toEqual([addresses.bob]);
    expectDataError(await send('alice', 'GET', path(fileKey)), 404, 'FILE_NOT_FOUND');
  });

  test('the audit log: every step, in order of its timestamp', async () => {
    const record = (await send('bob', 'GET', path(fileKey))).body.data;
    const { alice, bob } = addresses;
    expect(record.auditLog.map(({ timestamp: _t, ...rest }: { timestamp: number }) => rest)).toEqual([
      { action: 'MEMBER_ADDED', member: alice },
      { action: 'VERSION_ADDED', version: 1, uploadedBy: alice },
      { action: 'VERSION_ADDED', version: 2, uploadedBy: alice },
      { action: 'MEMBER_ADDED', member: bob },
      { action: 'ATTESTED', version: 2, attestor: bob },
      { action: 'MEMBER_ADDED', member: bob },
      { action: 'OWNERSHIP_TRANSFERRED', from: alice, to: bob },
      { action: 'MEMBER_REMOVED', member: alice },
    ]);
    const times = record.auditLog.map((e: { timestamp: number }) => e.timestamp);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(times[0]).toBe(record.createdAt);
  });

  test('the contract refuses an attestation the service let through: 500, unknown issue', async () => {
    // carol is a member when the service checks, and no more when her transaction runs: the owner removes her first, straight through the transaction endpoint
    const owner = 'bob';
    let refused: Answer | null = null;
    for (let attempt = 0; attempt < 6 && !refused; attempt++) {
      expect((await send(owner, 'POST', path(fileKey, '/members'), { member: addresses.carol })).status).toBe(200);
      const record = (await send(owner, 'GET', path(fileKey))).body.data;
      const remove = await api(node, 'POST', '/platform/v2.3/transaction', tokens[owner], {
        txs: [{ type: 'FUNCTION', payload: { contractAddress: record.address, method: 'remove', args: { member: addresses.carol }, metadata: { VM: 'SolidVM' } } }],
      });
      expect(remove.status).toBe(200);
      const attest = await send('carol', 'POST', path(fileKey, '/versions/1/attest'), form(v1, 'v1'));
      if (attest.status === 500) refused = attest;
      else expect([200, 404]).toContain(attest.status);
      // the remove is done before the next attempt shares again
      await api(node, 'POST', '/bloc/v2.2/transactions/results?resolve=true', tokens[owner], [remove.body[0].hash]);
    }
    expect(refused).not.toBeNull();
    expectMessageError(refused!, 500, 'INTERNAL', /unknown/);
  });

  test('a file on a private chain: only the chain members see it, even when shared with others', async () => {
    const created = await api(node, 'POST', '/bloc/v2.2/chain', tokens.alice, { label: 'files', contract: 'AutoApprove', src: AUTO_APPROVE_SOURCE, args: {}, members: [{ orgName: 'Carol', access: true }], balances: [], metadata: { VM: 'SolidVM' } });
    expect(created.status).toBe(200);
    const chain = created.body as string;
    const uploaded = await send('alice', 'POST', `/api/v1/files?chainid=${chain}`, form(v1, 'private.txt'));
    expect(uploaded.status).toBe(200);
    const key = uploaded.body.data.fileKey;
    expect(uploaded.body.data.chainId).toBe(chain);
    // not on the main chain
    expectDataError(await send('alice', 'GET', path(key)), 404, 'FILE_NOT_FOUND');
    expect((await send('alice', 'POST', `${path(key, '/members')}?chainid=${chain}`, { member: addresses.bob })).status).toBe(200);
    expect((await send('alice', 'POST', `${path(key, '/members')}?chainid=${chain}`, { member: addresses.carol })).status).toBe(200);
    expect((await send('carol', 'GET', `${path(key, '/versions/1')}?chainid=${chain}`)).body).toEqual(v1);
    // bob is a member of the file, not of the chain: he sees nothing of it
    expectDataError(await send('bob', 'GET', `${path(key)}?chainid=${chain}`), 404, 'FILE_NOT_FOUND');
    expectDataError(await send('bob', 'GET', `${path(key, '/versions/1')}?chainid=${chain}`), 404, 'FILE_NOT_FOUND');
    expect((await send('alice', 'GET', `${path(key)}?chainid=nothex`)).status).toBe(400);
  });

  test('a store without the bucket, or gone: 503 naming it, and no transaction sent', async () => {
    const s3 = new S3Client({ endpoint: `http://127.0.0.1:${node.config.files.s3.embeddedPort}`, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const objects = await s3.send(new ListObjectsV2Command({ Bucket: 'files' }));
    for (const o of objects.Contents ?? []) await s3.send(new DeleteObjectCommand({ Bucket: 'files', Key: o.Key! }));
    await s3.send(new DeleteBucketCommand({ Bucket: 'files' }));
    const count = async () => (await api(node, 'GET', '/cirrus/search/Acme-FileManager?select=count', tokens.alice)).body[0].count;
    const before = await count();
    const noBucket = await send('alice', 'POST', '/api/v1/files', form(v1, 'lost.txt'));
    expectMessageError(noBucket, 503, 'UNAVAILABLE', /bucket "files"/);
    await node.processes.get('object-store')!.stop();
    const noStore = await send('alice', 'POST', '/api/v1/files', form(v1, 'lost.txt'));
    expectMessageError(noStore, 503, 'UNAVAILABLE', /cannot be reached/);
    expect(await count()).toBe(before);
  });
});

describe('the file application with gas on', () => {
  let node: TestNode;
  const tokens: Record<string, string> = {};
  const addresses: Record<string, string> = {};

  beforeAll(async () => {
    node = await startTestNode({ GAS_ENABLED: 'true', FILES_MAX_BYTES: '65536' });
    for (const user of ['alice', 'bob']) {
      tokens[user] = await devToken(node, user, 'Acme');
      addresses[user] = (await api(node, 'POST', '/platform/v2.3/key', tokens[user])).body.address;
    }
    expect((await api(node, 'POST', `/bloc/v2.2/users/user/${addresses.alice}/fill?resolve=true`, tokens.alice)).body.status).toBe('Success');
  }, NODE_START_MS);
  afterAll(async () => {
    await node?.destroy();
  });

  const upload = async (user: string, path: string, content: Buffer) => {
    const data = new FormData();
    data.append('file', new Blob([content]), 'budget.csv');
    const response = await fetch(`${node.gatewayUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${tokens[user]}` }, body: data });
    return { status: response.status, body: (await response.json()) as any };
  };
  const balance = async (user: string) => BigInt((await api(node, 'GET', `/platform-api/eth/v1.2/account?address=${addresses[user]}`, tokens[user])).body[0]?.balance ?? 0);

  test('a file over FILES_MAX_BYTES is 413; share gives a member holding no tokens enough to attest', async () => {
    const tooLarge = await upload('alice', '/api/v1/files', Buffer.alloc(65537, 1));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toMatchObject({ success: false, error: { code: 'BODY_TOO_LARGE', details: { limit: 65536 } } });
    const content = Buffer.from('month,amount\njanuary,12\n');
    const uploaded = await upload('alice', '/api/v1/files', content);
    expect(uploaded.status).toBe(200);
    const key = encodeURIComponent(uploaded.body.data.fileKey);
    expect(await balance('bob')).toBe(0n);
    const shared = await api(node, 'POST', `/api/v1/files/${key}/members`, tokens.alice, { member: addresses.bob });
    expect(shared.status).toBe(200);
    expect(await balance('bob')).toBe(10n ** 18n);
    const attested = await upload('bob', `/api/v1/files/${key}/versions/1/attest`, content);
    expect(attested.status).toBe(200);
    expect(attested.body.data.versions[0].attestations).toHaveLength(1);
    expect(await balance('bob')).toBeLessThan(10n ** 18n);
  });
});
