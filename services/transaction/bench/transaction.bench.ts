// Admission throughput against real infrastructure (embedded NATS and
// PostgreSQL, the real vault): transactions admitted per second — signed,
// stored Pending with their outbox rows, published to JetStream — for
// batches of 100 from several clients, for one user's concurrent batches
// (which queue on the account's nonce row), and for raw transactions one per
// request; the latency of a lone request; and results recorded per second
// from ExecResults of 100 receipts.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { jetstream } from '@nats-io/jetstream';
import { IDENTITY, TX, VAULT, call, connectBus, decodeJson, handle, serve, type IdentityRecord, type NatsConnection, type RawTransactionBody, type SubmitItem, type TxDoneNotice } from '@platform/bus';
import { createLogger, loadConfig, type ExecResult, type Receipt } from '@platform/common';
import { bytesToHex, generateKeyPair, sign, signingHash, type KeyPair } from '@platform/crypto';
import { startTestInfra } from '@platform/launcher';
import { startVault } from '@platform/vault';
import { startTransactionService } from '../src/index.js';

interface Row {
  name: string;
  value: number;
  unit: string;
}

const SECONDS = 3;
const BATCH = 100;

const callItem = (i: number): SubmitItem => ({
  type: 'FUNCTION',
  payload: { contractAddress: 'c0'.repeat(20), method: 'set', args: { x: i }, metadata: { VM: 'SolidVM' } },
});

/** Runs `clients` loops of `op` for about SECONDS; transactions per second, where `op` answers how many it admitted. */
async function rate(clients: number, op: (client: number) => Promise<number>): Promise<number> {
  let admitted = 0;
  const started = performance.now();
  const until = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (performance.now() < until) {
        const n = await op(client); // not `admitted += await op()`: that reads `admitted` before the await
        admitted += n;
      }
    }),
  );
  return Math.round((admitted * 1000) / (performance.now() - started));
}

function rawBody(key: KeyPair, nonce: number): RawTransactionBody {
  const fields = { nonce: BigInt(nonce), gasPrice: 1n, gasLimit: 100_000n, to: 'c0'.repeat(20), value: 0n, initOrData: new Uint8Array(0), chainId: null };
  const sig = sign(signingHash(fields), key.privateKey);
  return {
    nonce,
    gasPrice: 1,
    gasLimit: 100_000,
    to: 'c0'.repeat(20),
    value: 0,
    initOrData: '',
    metadata: { VM: 'SolidVM', funcName: 'set', args: `(${nonce})` },
    r: bytesToHex(sig.r),
    s: bytesToHex(sig.s),
    v: sig.v,
  };
}

async function submitBatches(nc: NatsConnection, username: string, count: number): Promise<string[]> {
  const hashes: string[] = [];
  for (let i = 0; i < count; i++) {
    const results = await call(nc, TX.submit, { username, organization: null, chainId: null, transactions: Array.from({ length: BATCH }, (_, j) => callItem(j)) });
    hashes.push(...results.map((r) => r.hash));
  }
  return hashes;
}

/** Publishes ExecResults of BATCH receipts as the block service does and waits for every tx.done notice. */
async function recordResults(nc: NatsConnection, hashes: string[]): Promise<number> {
  const js = jetstream(nc);
  let seen = 0;
  const all = new Promise<void>((resolve) => {
    nc.subscribe('tx.done', {
      callback: (_err, msg) => {
        seen += decodeJson<TxDoneNotice>(msg.data).results.length;
        if (seen === hashes.length) resolve();
      },
    });
  });
  await nc.flush();
  const started = performance.now();
  for (let height = 1; (height - 1) * BATCH < hashes.length; height++) {
    const receipts: Receipt[] = hashes.slice((height - 1) * BATCH, height * BATCH).map((hash) => ({
      transactionHash: hash,
      from: '00'.repeat(20),
      status: 'Success',
      message: 'Success!',
      kind: 'SolidVM',
      response: '[]',
      returnValues: [],
      contractsCreated: [],
      contractsDeleted: [],
      gasUsed: '0',
      etherUsed: '0',
      stateChanges: [],
      events: [],
      time: 1,
      trace: '',
    }));
    const exec: ExecResult = { chainId: '', block: { number: height, hash: height.toString(16).padStart(64, '0'), timestamp: height, parentHash: '0'.repeat(64), stateRoot: '0'.repeat(64) }, receipts };
    await js.publish('exec.main', JSON.stringify(exec), { msgID: `main:${height}` });
  }
  await all;
  return Math.round((hashes.length * 1000) / (performance.now() - started));
}

export async function run(): Promise<Row[]> {
  const infra = await startTestInfra({ nats: true, postgres: true });
  const natsUrl = infra.nats!.url;
  // IDENTITY_REQUIRED=false in the environment measures admission without the identity check
  const identityRequired = process.env.IDENTITY_REQUIRED ?? 'true';
  const config = loadConfig({ DATA_DIR: join(infra.dataDir, 'node'), VAULT_PORT: '0', LOG_LEVEL: 'silent', ACCOUNT_NONCE_LIMIT: String(Number.MAX_SAFE_INTEGER), IDENTITY_REQUIRED: identityRequired });
  const logger = createLogger('bench', 'silent');
  // the block service's identity answer, played here: every account has a valid certificate
  let identityQuestions = 0;
  const blockNc = await connectBus({ url: natsUrl, name: 'transaction-bench-block' });
  await serve(blockNc, { name: 'block', version: '0.0.0', logger }, [
    handle(IDENTITY.status, ({ address }): IdentityRecord => {
      identityQuestions++;
      const certificate = { certificate: '', userAddress: address, commonName: 'bench', organization: 'Bench', organizationalUnit: '', country: '', certificateString: '', parent: '', expirationDate: 4_000_000_000 };
      return { address, registry: true, blockNumber: 1, certificate };
    }),
  ]);
  const vault = await startVault({ config, logger, natsUrl, databaseUrl: await infra.postgres!.createDatabase('vault_bench') });
  const service = await startTransactionService({ config, logger, natsUrl, databaseUrl: await infra.postgres!.createDatabase('tx_bench') });
  const nc = await connectBus({ url: natsUrl, name: 'transaction-bench' });
  try {
    const clients = 8;
    for (let i = 0; i < clients; i++) await call(nc, VAULT.keyCreate, { username: `bench-${i}` });
    const batch = (username: string) => async () => (await call(nc, TX.submit, { username, organization: null, chainId: null, transactions: Array.from({ length: BATCH }, (_, j) => callItem(j)) })).length;
    await rate(4, (c) => batch(`bench-${c}`)()); // warm up: JIT, connections, the vault's key cache

    const manyUsers = await rate(clients, (c) => batch(`bench-${c}`)());
    const oneUser = await rate(4, () => batch('bench-0')());

    const wallets = Array.from({ length: 16 }, () => ({ key: generateKeyPair(), nonce: 0 }));
    const raw = await rate(wallets.length, async (c) => {
      const wallet = wallets[c];
      await call(nc, TX.submitRaw, { username: 'bench-raw', organization: null, chainId: null, transaction: rawBody(wallet.key, wallet.nonce++) });
      return 1;
    });

    // a lone request on an otherwise idle service: the admission share of a `resolve=true` round trip
    const latencies: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      await call(nc, TX.submit, { username: 'bench-2', organization: null, chainId: null, transactions: [callItem(i)] });
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);

    const results = await recordResults(nc, await submitBatches(nc, 'bench-1', 20));
    const cores = availableParallelism();
    return [
      { name: `admission, batches of ${BATCH}, ${clients} users concurrently (${cores} cores)`, value: manyUsers, unit: 'tx/s' },
      { name: `admission, batches of ${BATCH}, one user, 4 requests in flight`, value: oneUser, unit: 'tx/s' },
      { name: `admission, raw transactions one per request, ${wallets.length} clients`, value: raw, unit: 'tx/s' },
      { name: 'admission latency of a lone one-transaction request, p50', value: latencies[100], unit: 'ms' },
      { name: 'admission latency of a lone one-transaction request, p99', value: latencies[198], unit: 'ms' },
      { name: `results recorded from ExecResults of ${BATCH} receipts`, value: results, unit: 'tx/s' },
      { name: `identity questions to the block service (IDENTITY_REQUIRED=${identityRequired})`, value: identityQuestions, unit: 'requests' },
    ];
  } finally {
    await nc.close();
    await blockNc.close();
    await service.stop();
    await vault.stop();
    await infra.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await run()) console.log(`${row.name}: ${row.value} ${row.unit}`);
}
