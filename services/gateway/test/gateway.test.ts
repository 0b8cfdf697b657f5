// The gateway in process, over real HTTP, in front of a real vault, NATS and
// PostgreSQL, with tokens of a standard OpenID issuer.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { computeAddress } from 'ethers';
import type { FastifyInstance } from 'fastify';
import { createLogger, loadConfig } from '@platform/common';
import { createTokenVerifier } from '@platform/auth';
import { startTestIssuer, type TestIssuer } from '@platform/auth/testing';
import { connectBus, type NatsConnection } from '@platform/bus';
import { ensureMainGenesis, startTestInfra, type TestInfra } from '@platform/launcher';
import { startBlockService } from '@platform/block';
import { startChainsService } from '@platform/chains';
import { startCirrus } from '@platform/cirrus';
import { startVault } from '@platform/vault';
import { startTransactionService } from '@platform/transaction';
import { buildGateway } from '../src/index.js';
import { effectiveBodyLimit } from '../src/app.js';
import { MAX_JSON_DEPTH, jsonDepthExceeds } from '../src/body.js';
import { restDocsDiffer } from './rest-doc.js';

const BODY_LIMIT = 4096;
/** how long a body may take after its headers here (60 s in a node) */
const BODY_DEADLINE_MS = 2_000;

interface Reply {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): any;
}

/** node:http rather than fetch: a GET may carry a body, and headers go out as given. */
function send(base: string, options: { method: string; url: string; headers?: Record<string, string>; payload?: string | Buffer }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    // explicit, so that a GET's body is framed (node sends it unframed otherwise)
    if (options.payload !== undefined) headers['content-length'] = String(Buffer.byteLength(options.payload));
    const req = httpRequest(`${base}${options.url}`, { method: options.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
      });
    });
    req.on('error', reject);
    req.end(options.payload);
  });
}

describe('gateway', () => {
  let infra: TestInfra;
  let issuer: TestIssuer;
  let nc: NatsConnection;
  let vault: { stop(): Promise<void> };
  let transactions: { stop(): Promise<void> };
  let blocks: { stop(): Promise<void> };
  let cirrus: { stop(): Promise<void> };
  let chains: { stop(): Promise<void> };
  let app: FastifyInstance;
  let token: string;
  let base: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    infra = await startTestInfra({ nats: true, postgres: true });
    issuer = await startTestIssuer();
    const databaseUrl = await infra.postgres!.createDatabase('gateway_test');
    // no files service here (readiness.test.ts checks the gateway's view of one)
    const config = loadConfig({ DATA_DIR: infra.dataDir, VAULT_PORT: '0', BODY_LIMIT_BYTES: String(BODY_LIMIT), OAUTH_DISCOVERY_URL: issuer.discoveryUrl, FILES_URL: 'none' });
    const sink = new Writable({ write: (chunk, _enc, done) => (logLines.push(String(chunk)), done()) });
    const logger = createLogger('gateway-test', 'info', sink);
    vault = await startVault({ config, logger, natsUrl: infra.nats!.url, databaseUrl });
    transactions = await startTransactionService({ config, logger, natsUrl: infra.nats!.url, databaseUrl });
    ensureMainGenesis(infra.dataDir);
    blocks = await startBlockService({ config, logger, natsUrl: infra.nats!.url, dataDir: infra.dataDir });
    cirrus = await startCirrus({ config, logger, natsUrl: infra.nats!.url, databaseUrl });
    chains = await startChainsService({ config, logger, natsUrl: infra.nats!.url, databaseUrl });
    nc = await connectBus({ url: infra.nats!.url, name: 'gateway-test' });
    const verifier = createTokenVerifier({ discoveryUrl: issuer.discoveryUrl, audience: null, usernameClaims: ['preferred_username', 'sub'], orgClaim: 'organization' });
    app = await buildGateway({ config, logger, nc, verifier, requestTimeoutMs: BODY_DEADLINE_MS });
    token = await issuer.token({ sub: 'u-1', preferred_username: 'erin' });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await chains?.stop();
    await cirrus?.stop();
    await blocks?.stop();
    await transactions?.stop();
    await vault?.stop();
    await nc?.close();
    await issuer?.stop();
    await infra?.stop();
  });

  const key = (method: 'GET' | 'POST', headers: Record<string, string> = {}, payload?: string | Buffer) =>
    send(base, { method, url: '/platform/v2.3/key', headers: { authorization: `Bearer ${token}`, ...headers }, ...(payload !== undefined ? { payload } : {}) });

  test('a body that has not arrived whole in time is 408 REQUEST_TIMEOUT, and its connection closed', async () => {
    const url = new URL(base);
    const socket = connect(Number(url.port), url.hostname);
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('close', () => resolve(text));
    });
    socket.write(`POST /platform/v2.3/transaction HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"txs":`);
    const started = Date.now();
    const text = await answer;
    expect(Date.now() - started).toBeGreaterThanOrEqual(BODY_DEADLINE_MS - 100);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error.code).toBe('REQUEST_TIMEOUT');
    // a body that arrives in time, after a pause, is served
    const slow = connect(Number(url.port), url.hostname);
    const served = new Promise<string>((resolve) => {
      let got = '';
      slow.on('data', (chunk) => {
        got += chunk.toString('utf8');
        if (got.includes('\r\n\r\n')) resolve(got);
      });
    });
    slow.write(`POST /platform/v2.3/transaction HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{`);
    await new Promise((r) => setTimeout(r, BODY_DEADLINE_MS / 2));
    slow.write('}');
    expect(await served).toMatch(/^HTTP\/1\.1 400 /); // read whole, and refused for what it says
    slow.destroy();
  });

  test('creates and reads a key; the address matches ethers', async () => {
    const created = await key('POST');
    expect(created.statusCode).toBe(200);
    const body = created.json();
    expect(computeAddress(`0x${body.pubkey}`).toLowerCase()).toBe(`0x${body.address}`);
    expect((await key('GET')).json()).toEqual(body);
    const again = await key('POST');
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'USER_EXISTS', message: 'User erin already exists' });
  });

  test('a body-less endpoint ignores any body of any content type, even malformed JSON', async () => {
    for (const [type, payload] of [
      ['application/json', '{"broken'],
      ['application/x-www-form-urlencoded', ''],
      ['text/plain', 'hello'],
    ] as const) {
      const res = await key('GET', { 'content-type': type }, payload);
      expect(res.statusCode).toBe(200);
    }
  });

  test('an oversized body is 413 BODY_TOO_LARGE with the JSON error body', async () => {
    const res = await key('POST', { 'content-type': 'application/json' }, JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT * 2) }));
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('BODY_TOO_LARGE');
  });

  test("the body limit is BODY_LIMIT_BYTES, but never more than the bus's max_payload less 64 KiB; a 413 names it", async () => {
    expect(effectiveBodyLimit(10 * 1024 * 1024, 8 * 1024 * 1024)).toBe(8 * 1024 * 1024 - 64 * 1024);
    expect(effectiveBodyLimit(4096, 8 * 1024 * 1024)).toBe(4096);
    expect(effectiveBodyLimit(4096, undefined)).toBe(4096);
    const res = await key('POST', { 'content-type': 'application/json' }, 'x'.repeat(BODY_LIMIT + 1));
    expect(res.json().error).toMatchObject({ code: 'BODY_TOO_LARGE', message: `the body exceeds the limit of ${BODY_LIMIT} bytes`, details: { limit: BODY_LIMIT } });
  });

  test("a client still sending a body over the limit reads the 413, not a broken pipe: node:http's client, which does not read while it writes", async () => {
    const url = new URL('/platform/v2.3/key', base);
    const total = 4 * 1024 * 1024;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(total) } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      // written in pieces, as a client on a real network sends it
      const piece = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const more = (): void => {
        while (sent < total) {
          sent += piece.length;
          if (!req.write(piece)) return void req.once('drain', more);
        }
        req.end();
      };
      more();
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'BODY_TOO_LARGE', details: { limit: BODY_LIMIT } });
  });

  test('JSON nested deeper than MAX_JSON_DEPTH is a 400 saying the limit, not a stack overflow', async () => {
    expect(jsonDepthExceeds('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonDepthExceeds('['.repeat(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    // brackets inside strings, escaped quotes included, are not nesting
    expect(jsonDepthExceeds(JSON.stringify({ a: '[[[[\\"[[[[' }), 2)).toBe(false);
    const depth = 1000;
    const body = `{"txs":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const res = await send(base, { method: 'POST', url: '/platform/v2.3/transaction', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('INVALID_JSON');
    expect(res.json().error.message).toContain(`more than ${MAX_JSON_DEPTH} levels`);
  });

  test("the client's request id is echoed and put in the error body; a bad one is replaced", async () => {
    const res = await send(base, { method: 'GET', url: '/platform/v2.3/key', headers: { 'x-request-id': 'client-42' } });
    expect(res.headers['x-request-id']).toBe('client-42');
    expect(res.json().error.requestId).toBe('client-42');
    const replaced = await send(base, { method: 'GET', url: '/platform/v2.3/key', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("each request's log line carries its request id", async () => {
    await send(base, { method: 'GET', url: '/platform/v2.3/key', headers: { authorization: `Bearer ${token}`, 'x-request-id': 'logged-7' } });
    const lines = logLines.map((line) => JSON.parse(line) as { reqId?: string; msg?: string; status?: number });
    expect(lines).toContainEqual(expect.objectContaining({ reqId: 'logged-7', msg: 'request', status: 200 }));
  });

  test('the OpenAPI document describes the key routes and the error body', async () => {
    const doc = (await send(base, { method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths['/platform/v2.3/key']).toHaveProperty('post');
    expect(doc.paths['/platform/v2.3/key']).toHaveProperty('get');
    for (const path of ['/platform/v2.3/transaction', '/platform/v2.3/transaction/raw', '/bloc/v2.2/transaction/raw', '/bloc/v2.2/transactions/results', '/bloc/v2.2/transactions/{hash}/result', '/bloc/v2.2/users/user/{address}/fill', '/bloc/v2.2/contracts/compile', '/platform-api/eth/v1.2/account']) {
      expect(doc.paths).toHaveProperty([path]);
    }
    expect(doc.components.schemas).toHaveProperty('TxResult');
    expect(doc.components.schemas).toHaveProperty('ErrorBody');
    expect(doc.paths).not.toHaveProperty('/ready');
  });

  test('every documented route lists 401, 500 and 503, and one taking a body 400, 413 and 415, beside its own statuses', async () => {
    const doc = (await send(base, { method: 'GET', url: '/openapi.json' })).json();
    const operations = Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ at: `${method} ${path}`, method, statuses: Object.keys(op.responses) })));
    expect(operations.length).toBeGreaterThan(10);
    for (const { at, method, statuses } of operations) {
      expect([at, statuses]).toEqual([at, expect.arrayContaining(['401', '500', '503', ...(method === 'post' ? ['400', '413', '415'] : [])])]);
    }
    expect(doc.paths['/platform/v2.3/transaction'].post.responses).toHaveProperty('409');
    expect(doc.paths['/cirrus/search/{table}'].get.responses).toHaveProperty('206');
  });

  test('docs/openapi.json and docs/rest.md are the document the gateway serves', async () => {
    const doc = (await send(base, { method: 'GET', url: '/openapi.json' })).json();
    expect(restDocsDiffer(doc)).toEqual([]);
  });

  test('/ready reports each dependency', async () => {
    const res = await send(base, { method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json().checks).toEqual({ nats: true, identityProvider: true, vault: true, tx: true, block: true, cirrus: true, chains: true, chainsProgressing: true });
    expect(res.json().chains).toEqual({ main: { height: expect.any(Number), progressing: true } });
  });

  test('random bodies and headers at the key routes get a 2xx/4xx with a JSON body, never a 5xx', async () => {
    const header = fc.oneof(fc.string(), fc.constantFrom('Bearer', 'Bearer ', `Bearer ${token}`, `bearer ${token}x`, 'Basic YTpi', `Bearer ${token.slice(0, -3)}abc`));
    const contentType = fc.oneof(fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-8'), fc.string());
    const body = fc.oneof(fc.string(), fc.json(), fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)), fc.constant(''));
    const printable = (s: string) => s.replace(/[^\x20-\x7e]/g, '');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST') as fc.Arbitrary<'GET' | 'POST'>, header, contentType, body, fc.dictionary(fc.stringMatching(/^[a-z][a-z-]{0,12}$/), fc.string()), async (method, authorization, type, payload, extra) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(extra)) headers[name] = printable(value);
        headers.authorization = printable(authorization);
        headers['content-type'] = printable(type);
        delete headers['content-length'];
        delete headers['transfer-encoding'];
        const res = await send(base, { method, url: '/platform/v2.3/key', headers, payload });
        expect(res.statusCode).toBeLessThan(500);
        if (res.statusCode >= 400) expect(res.json().error.code).toEqual(expect.any(String));
      }),
      { numRuns: 300 },
    );
  });

  test('random bodies at the transaction routes get a 2xx/4xx with a JSON body, never a 5xx', async () => {
    const route = fc.constantFrom('/platform/v2.3/transaction', '/platform/v2.3/transaction/raw', '/bloc/v2.2/transactions/results', '/platform/v2.3/transaction?resolve=maybe', '/bloc/v2.2/transactions/zz/result');
    const item = fc.record({ type: fc.oneof(fc.constantFrom('CONTRACT', 'FUNCTION', 'TRANSFER'), fc.string()), payload: fc.oneof(fc.object(), fc.record({ contractAddress: fc.string(), method: fc.string(), args: fc.object() }), fc.record({ toAddress: fc.string(), value: fc.oneof(fc.integer(), fc.string()) })) });
    const body = fc.oneof(fc.json(), fc.record({ txs: fc.array(item, { maxLength: 3 }) }), fc.record({ nonce: fc.anything(), r: fc.string(), s: fc.string(), initOrData: fc.string(), gasPrice: fc.anything(), gasLimit: fc.anything(), value: fc.anything() }), fc.array(fc.string(), { maxLength: 3 }).map((a) => JSON.stringify(a)));
    await fc.assert(
      fc.asyncProperty(route, body, async (url, payload) => {
        const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
        const res = await send(base, { method: url.includes('/result') && !url.includes('results') ? 'GET' : 'POST', url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: text });
        expect(res.statusCode).toBeLessThan(500);
        if (res.statusCode >= 400) expect(res.json().error.code).toEqual(expect.any(String));
      }),
      { numRuns: 200 },
    );
  });

  test('the account lookup answers an array (empty for an unknown address); compile answers code hashes or 422 with the messages', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const unknown = await send(base, { method: 'GET', url: `/platform-api/eth/v1.2/account?address=0x${'ab'.repeat(20)}`, headers: auth });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual([]);
    for (const url of ['/platform-api/eth/v1.2/account', '/platform-api/eth/v1.2/account?address=zz', `/platform-api/eth/v1.2/account?address=${'ab'.repeat(20)}&chainid=12`]) {
      const res = await send(base, { method: 'GET', url, headers: auth });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('querystring') });
    }
    const otherChain = await send(base, { method: 'GET', url: `/platform-api/eth/v1.2/account?address=${'ab'.repeat(20)}&chainid=${'cd'.repeat(32)}`, headers: auth });
    expect(otherChain.statusCode).toBe(404);
    expect((await send(base, { method: 'GET', url: `/platform-api/eth/v1.2/account?address=${'ab'.repeat(20)}` })).statusCode).toBe(401);

    const compile = (body: unknown) => send(base, { method: 'POST', url: '/bloc/v2.2/contracts/compile', headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    const ok = await compile([{ source: 'contract A { uint x; }', vm: 'SolidVM' }]);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual([{ contractName: 'A', codeHash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    const bad = await compile([{ source: 'contract A { uint x = ; }', vm: 'SolidVM' }]);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error).toMatchObject({ code: 'COMPILE_FAILED', details: { field: '[0].source', vm: 'SolidVM', errors: [expect.objectContaining({ severity: 'error' })] } });
    for (const body of [[], {}, [{ vm: 'SolidVM' }], [{ source: 'x', vm: 'WASM' }]]) {
      const res = await compile(body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_FAILED');
    }
  });

  test('random bodies and queries at the chain information routes get a 2xx/4xx with a JSON body, never a 5xx', async () => {
    const item = fc.record({ contractName: fc.oneof(fc.string(), fc.anything()), source: fc.oneof(fc.string(), fc.dictionary(fc.string(), fc.string()), fc.anything()), vm: fc.oneof(fc.constantFrom('EVM', 'SolidVM'), fc.string()) }, { requiredKeys: [] });
    const body = fc.oneof(fc.json(), fc.array(item, { maxLength: 3 }).map((a) => JSON.stringify(a)));
    const query = fc.oneof(fc.string(), fc.stringMatching(/^[0-9a-f]{40}$/).map((h) => `address=${h}`), fc.tuple(fc.stringMatching(/^(0x)?[0-9a-fA-F]{0,42}$/), fc.string()).map(([a, c]) => `address=${a}&chainid=${encodeURIComponent(c)}`));
    await fc.assert(
      fc.asyncProperty(fc.boolean(), body, query, async (compile, payload, q) => {
        const res = compile
          ? await send(base, { method: 'POST', url: '/bloc/v2.2/contracts/compile', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload })
          : await send(base, { method: 'GET', url: `/platform-api/eth/v1.2/account?${encodeURI(q)}`, headers: { authorization: `Bearer ${token}` } });
        expect(res.statusCode).toBeLessThan(500);
        if (res.statusCode >= 400) expect(res.json().error.code).toEqual(expect.any(String));
      }),
      { numRuns: 150 },
    );
  });

  test('private chains: creation answers the ID as a JSON string; a non-member gets 404 for the record and the chain\'s accounts', async () => {
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await key('POST');
    const gov = 'contract Gov { event OrgAdded(string orgName); constructor() {} function addOrg(string o) public { emit OrgAdded(o); } }';
    const created = await send(base, { method: 'POST', url: '/bloc/v2.2/chain', headers: auth, payload: JSON.stringify({ label: 'g', contract: 'Gov', src: gov, args: {}, members: [], metadata: { VM: 'SolidVM' } }) });
    expect(created.statusCode).toBe(200);
    const id = created.json() as string;
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    const mine = await send(base, { method: 'GET', url: `/bloc/v2.2/chain/${id}`, headers: auth });
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toMatchObject({ id, info: { label: 'g', parentChain: null } });
    expect((await send(base, { method: 'GET', url: `/platform-api/eth/v1.2/chain?chainid=${id}`, headers: auth })).json()).toHaveLength(1);

    const other = { authorization: `Bearer ${await issuer.token({ sub: 'u-2', preferred_username: 'olga', organization: 'Elsewhere' })}` };
    const hidden = await send(base, { method: 'GET', url: `/bloc/v2.2/chain/${id}`, headers: other });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json().error.code).toBe('CHAIN_NOT_FOUND');
    // as for a chain that does not exist
    expect((await send(base, { method: 'GET', url: `/bloc/v2.2/chain/${'0'.repeat(64)}`, headers: other })).json().error.message).toBe(`no chain ${'0'.repeat(64)} on this node`);
    expect((await send(base, { method: 'GET', url: `/platform-api/eth/v1.2/chain?chainid=${id}`, headers: other })).json()).toEqual([]);
    expect((await send(base, { method: 'GET', url: '/bloc/v2.2/chain?limit=10', headers: other })).json()).toEqual([]);
    const governance = `/platform-api/eth/v1.2/account?address=${'00'.repeat(18)}0100&chainid=${id}`;
    expect((await send(base, { method: 'GET', url: governance, headers: other })).statusCode).toBe(404);
    expect((await send(base, { method: 'GET', url: governance, headers: auth })).json()).toEqual([expect.objectContaining({ chainId: id })]);
    // olga has no key in the vault: she cannot create chains
    const refused = await send(base, { method: 'POST', url: '/bloc/v2.2/chain', headers: { ...other, 'content-type': 'application/json' }, payload: JSON.stringify({ label: 'x', contract: 'Gov', src: gov }) });
    expect(refused.statusCode).toBe(403);
  });

  test('random bodies and queries at the chain routes get a 2xx/4xx with a JSON body, never a 5xx', async () => {
    const member = fc.record({ orgName: fc.oneof(fc.string(), fc.anything()), orgUnit: fc.anything(), commonName: fc.string(), access: fc.anything() }, { requiredKeys: [] });
    const chain = fc.record(
      { label: fc.oneof(fc.string(), fc.anything()), contract: fc.string(), src: fc.oneof(fc.string(), fc.anything()), args: fc.anything(), members: fc.oneof(fc.array(member, { maxLength: 2 }), fc.anything()), balances: fc.anything(), parentChain: fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string()) },
      { requiredKeys: [] },
    );
    const request = fc.oneof(
      fc.oneof(fc.json(), chain.map((c) => JSON.stringify(c))).map((payload) => ({ method: 'POST', url: '/bloc/v2.2/chain', payload })),
      fc.oneof(fc.json(), fc.array(chain, { maxLength: 2 }).map((c) => JSON.stringify(c))).map((payload) => ({ method: 'POST', url: '/bloc/v2.2/chains', payload })),
      fc.string().map((q) => ({ method: 'GET', url: `/bloc/v2.2/chain?${q}` })),
      fc.string().map((q) => ({ method: 'GET', url: `/platform-api/eth/v1.2/chain?chainid=${q}` })),
      fc.string().map((id) => ({ method: 'GET', url: `/bloc/v2.2/chain/${id}` })),
    );
    await fc.assert(
      fc.asyncProperty(request, async (r: { method: string; url: string; payload?: string }) => {
        const res = await send(base, { method: r.method, url: encodeURI(r.url), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(r.payload === undefined ? {} : { payload: r.payload }) });
        expect(res.statusCode).toBeLessThan(500);
        if (res.statusCode >= 400) expect(res.json().error.code).toEqual(expect.any(String));
      }),
      { numRuns: 120 },
    );
  });

  test('tokens never reach the logs', async () => {
    expect(logLines.join('')).not.toContain(token);
    expect(logLines.join('')).not.toContain(token.split('.')[2]);
  });
});
