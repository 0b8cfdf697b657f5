// The legacy file storage end to end (`/apex-api/bloc/file/*`, issue
// "Files"): turned on by EXT_STORAGE_OBJ_* against the node's embedded object
// store (its credentials), a bucket the node makes; upload, list, a download
// URL that works once and without a token, attest and verify.
import { createHash } from 'node:crypto';
import { api, devToken, startTestNode, type TestNode } from './harness.js';

const NODE_START_MS = 180_000;

describe('the legacy file storage', () => {
  let node: TestNode;
  const tokens: Record<string, string> = {};
  const addresses: Record<string, string> = {};
  const content = Buffer.from('signed minutes of the meeting\n'.repeat(200));
  let contractAddress: string;

  beforeAll(async () => {
    node = await startTestNode({ EXT_STORAGE_OBJ_BUCKET: 'legacy-files', EXT_STORAGE_OBJ_ACCESS_KEY_ID: 'S3RVER', EXT_STORAGE_OBJ_SECRET_ACCESS_KEY: 'S3RVER' });
    for (const [user, org] of [['alice', 'Acme'], ['bob', 'Beta']]) {
      tokens[user] = await devToken(node, user, org);
      addresses[user] = (await api(node, 'POST', '/platform/v2.3/key', tokens[user])).body.address;
    }
  }, NODE_START_MS);
  afterAll(async () => {
    await node?.destroy();
  });

  const upload = async (user: string, form: FormData) => {
    const response = await fetch(`${node.gatewayUrl}/apex-api/bloc/file/upload`, { method: 'POST', headers: { authorization: `Bearer ${tokens[user]}` }, body: form });
    return { status: response.status, body: (await response.json()) as any };
  };

  test('upload: the contract, the file key, the URI at the store and the metadata', async () => {
    const form = new FormData();
    form.append('provider', 's3');
    form.append('content', new Blob([content]), 'minutes.txt');
    form.append('metadata', '{"meeting":"board"}');
    const uploaded = await upload('alice', form);
    expect(uploaded.status).toBe(200);
    expect(uploaded.body).toEqual({ contractAddress: expect.stringMatching(/^[0-9a-f]{40}$/), fileKey: expect.stringMatching(/^\d{13}_minutes\.txt$/), uri: expect.stringContaining('/legacy-files/'), metadata: '{"meeting":"board"}' });
    contractAddress = uploaded.body.contractAddress;
    const missing = new FormData();
    missing.append('provider', 's3');
    expect(await upload('alice', missing)).toMatchObject({ status: 400, body: { error: { code: 'BAD_REQUEST', message: 'Missing file' } } });
  });

  test('list: contract address, hash, file key, URI and creation time; paged', async () => {
    const listed = await api(node, 'GET', '/apex-api/bloc/file/list?limit=10&offset=0', tokens.bob);
    expect(listed.status).toBe(200);
    expect(listed.body.list).toEqual([{ contractAddress, hash: createHash('sha256').update(content).digest('hex'), fileKey: expect.stringMatching(/_minutes\.txt$/), uri: expect.any(String), createdAt: expect.any(Number) }]);
    expect((await api(node, 'GET', '/apex-api/bloc/file/list?offset=1', tokens.bob)).body).toEqual({ list: [] });
    expect((await api(node, 'GET', '/apex-api/bloc/file/list?limit=many', tokens.bob)).status).toBe(400);
  });

  test('download: a URL that works once, without a token', async () => {
    const asked = await api(node, 'GET', `/apex-api/bloc/file/download?contractAddress=${contractAddress}`, tokens.bob);
    expect(asked.status).toBe(200);
    expect(asked.body.url).toMatch(new RegExp(`^${node.gatewayUrl}/apex-api/bloc/file/content\\?token=[0-9a-f]{64}$`));
    // the token, a credential, is in no log line: request logs keep the path only
    const token = new URL(asked.body.url).searchParams.get('token')!;
    const first = await fetch(asked.body.url);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-disposition')).toBe('attachment; filename="minutes.txt"');
    expect(Buffer.from(await first.arrayBuffer())).toEqual(content);
    const again = await fetch(asked.body.url);
    expect(again.status).toBe(404);
    expect(((await again.json()) as any).error.message).toMatch(/used already/);
    expect((await fetch(`${node.gatewayUrl}/apex-api/bloc/file/content`)).status).toBe(404);
    expect(node.logs.filter((line) => line.includes(token))).toEqual([]);
    expect((await api(node, 'GET', '/apex-api/bloc/file/download?contractAddress=xyz', tokens.bob)).status).toBe(400);
    expect((await api(node, 'GET', `/apex-api/bloc/file/download?contractAddress=${'ab'.repeat(20)}`, tokens.bob)).status).toBe(404);
    expect((await fetch(`${node.gatewayUrl}/apex-api/bloc/file/download?contractAddress=${contractAddress}`)).status).toBe(401);
  });

  test('attest and verify: the uploader is the first signer, each attestation adds its caller', async () => {
    const attested = await api(node, 'POST', '/apex-api/bloc/file/attest', tokens.bob, { contractAddress });
    expect(attested.status).toBe(200);
    expect(attested.body).toEqual({ attested: true, signers: [addresses.alice, addresses.bob] });
    const verified = await api(node, 'GET', `/apex-api/bloc/file/verify?contractAddress=${contractAddress}`, tokens.alice);
    expect(verified.body).toEqual({ uri: expect.stringContaining('/legacy-files/'), timeStamp: expect.any(Number), signers: [addresses.alice, addresses.bob] });
    expect((await api(node, 'POST', '/apex-api/bloc/file/attest', tokens.bob, {})).status).toBe(400);
  });
});
