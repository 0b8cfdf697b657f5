// /ready and /metrics say which chain makes no progress, as the block service
// reports it on `block-svc.health`. Here a stand-in block instance on a real
// NATS answers for two chains, one of them stuck (the block service's own
// detection of a stuck chain is services/block/test/liveness.test.ts). /ready
// checks the files service on its /health: a stand-in HTTP server answers it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, loadConfig } from '@platform/common';
import { createTokenVerifier } from '@platform/auth';
import { startTestIssuer, type TestIssuer } from '@platform/auth/testing';
import { BLOCK, connectBus, handle, serve, type ChainHealthRecord, type NatsConnection } from '@platform/bus';
import { startTestInfra, type TestInfra } from '@platform/launcher';
import type { FastifyInstance } from 'fastify';
import { buildGateway } from '../src/index.js';

const PRIVATE = 'ab'.repeat(32);
const SINCE = Date.UTC(2026, 0, 2, 3, 4, 5);

describe('gateway readiness per chain', () => {
  let infra: TestInfra;
  let issuer: TestIssuer;
  let nc: NatsConnection;
  let block: Awaited<ReturnType<typeof serve>>;
  let app: FastifyInstance;
  let chains: ChainHealthRecord[];
  let base: string;
  let files: Server;
  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`);
    return { statusCode: res.status, body: await res.text() };
  };

  beforeAll(async () => {
    infra = await startTestInfra({ nats: true });
    issuer = await startTestIssuer();
    const logger = createLogger('readiness-test', 'silent');
    nc = await connectBus({ url: infra.nats!.url, name: 'readiness-test' });
    block = await serve(nc, { name: 'block', version: '0.0.0', logger }, [handle(BLOCK.health, () => ({ chains }))]);
    files = createServer((request, response) => response.writeHead(request.url === '/health' ? 200 : 404).end());
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    const filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    const config = loadConfig({ DATA_DIR: infra.dataDir, OAUTH_DISCOVERY_URL: issuer.discoveryUrl, FILES_URL: filesUrl });
    const verifier = createTokenVerifier({ discoveryUrl: issuer.discoveryUrl, audience: null, usernameClaims: ['sub'], orgClaim: 'organization' });
    app = await buildGateway({ config, logger, nc, verifier });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app?.close();
    files?.closeAllConnections();
    files?.close();
    await block?.stop();
    await nc?.close();
    await issuer?.stop();
    await infra?.stop();
  });

  test('a stuck chain makes /ready 503, naming the chain, why and since when; /metrics counts its retries', async () => {
    chains = [
      { chainId: '', height: 12, stuck: false, since: null, reason: null, retries: 2, halted: null, networkHeight: 14, agreedHeight: 11 },
      { chainId: PRIVATE, height: 7, stuck: true, since: SINCE, reason: 'message size exceeds maximum allowed', retries: 41, halted: null, networkHeight: 7, agreedHeight: null },
    ];
    const ready = await get('/ready');
    expect(ready.statusCode).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({
      status: 'not ready',
      checks: { block: true, chainsProgressing: false },
      chains: {
        main: { height: 12, progressing: true },
        [PRIVATE]: { height: 7, progressing: false, reason: 'message size exceeds maximum allowed', since: new Date(SINCE).toISOString(), retries: 41 },
      },
    });
    const metrics = (await get('/metrics')).body;
    expect(metrics).toContain('block_chain_retries_total{chain="main"} 2');
    expect(metrics).toContain(`block_chain_retries_total{chain="${PRIVATE}"} 41`);
    expect(metrics).toContain(`block_chain_stuck{chain="${PRIVATE}"} 1`);
    expect(metrics).toContain('block_chain_stuck{chain="main"} 0');
    expect(metrics).toContain(`block_chain_height{chain="${PRIVATE}"} 7`);
    // in a network: how far the network is, and how far this node agrees with it
    expect(metrics).toContain('block_chain_network_height{chain="main"} 14');
    expect(metrics).toContain('block_chain_agreed_height{chain="main"} 11');
    expect(metrics).not.toContain(`block_chain_agreed_height{chain="${PRIVATE}"}`);
  });

  test('a halted chain is not progressing either; once every chain moves, the chains check passes', async () => {
    chains = [{ chainId: '', height: 3, stuck: false, since: null, reason: null, retries: 0, halted: 'block 4 at stream sequence 9 cannot be applied: its parent hash is …', networkHeight: 4, agreedHeight: null }];
    const halted = JSON.parse((await get('/ready')).body);
    expect(halted.checks.chainsProgressing).toBe(false);
    expect(halted.chains.main).toMatchObject({ progressing: false, reason: expect.stringContaining('cannot be applied') });
    chains = [{ chainId: '', height: 3, stuck: false, since: null, reason: null, retries: 0, halted: null, networkHeight: 3, agreedHeight: null }];
    const fine = JSON.parse((await get('/ready')).body);
    expect(fine.checks.chainsProgressing).toBe(true);
    expect(fine.chains).toEqual({ main: { height: 3, progressing: true } });
  });

  test('/ready checks the files service on its /health: answering, then gone', async () => {
    chains = [];
    expect(JSON.parse((await get('/ready')).body).checks.files).toBe(true);
    files.closeAllConnections();
    await new Promise<void>((resolve) => files.close(() => resolve()));
    const gone = await get('/ready');
    expect(gone.statusCode).toBe(503);
    expect(JSON.parse(gone.body)).toMatchObject({ status: 'not ready', checks: { files: false } });
  });

  test('a node without a files service (FILES_URL=none) neither waits for one nor routes the file endpoints', async () => {
    const config = loadConfig({ DATA_DIR: infra.dataDir, OAUTH_DISCOVERY_URL: issuer.discoveryUrl, FILES_URL: 'none' });
    const verifier = createTokenVerifier({ discoveryUrl: issuer.discoveryUrl, audience: null, usernameClaims: ['sub'], orgClaim: 'organization' });
    const bare = await buildGateway({ config, logger: createLogger('readiness-test', 'silent'), nc, verifier });
    try {
      const at = await bare.listen({ host: '127.0.0.1', port: 0 });
      expect(((await (await fetch(`${at}/ready`)).json()) as { checks: object }).checks).not.toHaveProperty('files');
      const page = await fetch(`${at}/files`);
      expect(page.status).toBe(404);
      expect(((await page.json()) as { error: { code: string } }).error.code).toBe('ROUTE_NOT_FOUND');
    } finally {
      await bare.close();
    }
  });
});
