// Fixtures of the transaction service's tests: real NATS (JetStream) and
// PostgreSQL, a real vault, and the service started per test with the
// configuration the test needs (one instance at a time: every instance of
// the service answers in one queue group). The block service is played by
// the tests themselves, publishing ExecResults to the real EXEC stream.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { jetstream, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { encodeRlp, keccak256, toBeArray, toUtf8Bytes } from 'ethers';
import { BLOCK, CHAINS, STREAMS, VAULT, busJetStream, call, connectBus, decodeJson, handle, serve, type NatsConnection } from '@platform/bus';
import { bytesToHex, generateChainKey, openInEpoch } from '@platform/crypto';
import { DEFAULT_NODE_NAME, DEFAULT_PROTOCOL, createLogger, loadConfig, type ExecResult, type ProtocolParams, type Logger, type Receipt, type Transaction } from '@platform/common';
import { startTestInfra, type TestInfra } from '@platform/launcher';
import { startVault, type RunningVault } from '@platform/vault';
import { startTransactionService, type Faults, type RunningTransactionService } from '../src/index.js';

export interface Fixture {
  infra: TestInfra;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** a fresh database */
  database(name: string): Promise<string>;
  /** starts the service on its own fresh database unless one is given; stopped by the next start or at the end */
  start(options?: { env?: Record<string, string>; databaseUrl?: string; faults?: Faults; logger?: Logger; outboxSweepMs?: number; rebuild?: boolean }): Promise<RunningTransactionService & { databaseUrl: string }>;
  /** a vault user's address, creating the key */
  user(username: string): Promise<string>;
  sql<R extends pg.QueryResultRow>(databaseUrl: string, text: string, values?: unknown[]): Promise<R[]>;
  /**
   * the chains service, played: every chain exists but `missing`; a user sees the chains listed for it; a `membersOnly` chain exists for those only; `protocols` of chains (default: DEFAULT_PROTOCOL).
   * The block service's keys of private chains, played too: each chain's made up at its first use (`keys`).
   */
  chains: { missing: Set<string>; membersOf: Map<string, string[]>; membersOnly: Set<string>; protocols: Map<string, ProtocolParams>; keys: Map<string, Uint8Array> };
  stop(): Promise<void>;
}

let databases = 0;

export async function fixture(): Promise<Fixture> {
  const infra = await startTestInfra({ nats: true, postgres: true });
  const natsUrl = infra.nats!.url;
  // identity (IDENTITY_REQUIRED) needs the block service's registry: test/identity.test.ts covers it with one
  const config = (env: Record<string, string> = {}) => loadConfig({ DATA_DIR: join(infra.dataDir, 'node'), VAULT_PORT: '0', LOG_LEVEL: 'silent', IDENTITY_REQUIRED: 'false', ...env });
  const vault: RunningVault = await startVault({
    config: config(),
    logger: createLogger('vault', 'silent'),
    natsUrl,
    databaseUrl: await infra.postgres!.createDatabase('vault'),
  });
  const nc = await connectBus({ url: natsUrl, name: 'transaction-test' });
  const chains: Fixture['chains'] = { missing: new Set<string>(), membersOf: new Map<string, string[]>(), membersOnly: new Set<string>(), protocols: new Map<string, ProtocolParams>(), keys: new Map<string, Uint8Array>() };
  const chainsService = await serve(nc, { name: 'chains', version: '0.0.0', logger: createLogger('chains', 'silent') }, [
    handle(CHAINS.exists, ({ chainId, username }) => {
      const id = chainId ?? '';
      const membersOnly = chains.membersOnly.has(id);
      const exists = !chains.missing.has(id) && (!membersOnly || (chains.membersOf.get(username) ?? []).includes(id));
      return { chainId: id, exists, membersOnly: exists && membersOnly, protocol: exists ? (chains.protocols.get(id) ?? DEFAULT_PROTOCOL) : null };
    }),
    handle(CHAINS.visibleTo, ({ username }) => ({ chainIds: ['', ...(chains.membersOf.get(username) ?? [])] })),
  ]);
  const blockService = await serve(nc, { name: 'block', version: '0.0.0', logger: createLogger('block', 'silent') }, [handle(BLOCK.chainKey, ({ chainId }) => ({ key: bytesToHex(chainKeyOf(chains, chainId)), epoch: 0 }))]);
  let running: RunningTransactionService | null = null;
  const pools = new Map<string, pg.Pool>();

  const f: Fixture = {
    infra,
    nc,
    chains,
    js: jetstream(nc),
    // the TX stream is the network's: its API is reached through the account's import
    jsm: (await busJetStream(nc, { node: DEFAULT_NODE_NAME, replicas: 1 })).network.jsm,
    database: (name) => infra.postgres!.createDatabase(name),
    async start(options = {}) {
      await running?.stop();
      const databaseUrl = options.databaseUrl ?? (await f.database(`tx_${++databases}`));
      running = await startTransactionService({
        config: config(options.env),
        logger: options.logger ?? createLogger('transaction', 'silent'),
        natsUrl,
        databaseUrl,
        faults: options.faults,
        rebuild: options.rebuild,
        outboxSweepMs: options.outboxSweepMs ?? 60_000,
        // a message left unacknowledged by a simulated crash comes back quickly
        execAckWaitMs: 1_000,
      });
      return { ...running, databaseUrl };
    },
    async user(username) {
      try {
        return (await call(nc, VAULT.keyCreate, { username })).address;
      } catch {
        return (await call(nc, VAULT.keyGet, { username })).address;
      }
    },
    async sql(databaseUrl, text, values = []) {
      let pool = pools.get(databaseUrl);
      if (!pool) {
        pools.set(databaseUrl, (pool = new pg.Pool({ connectionString: databaseUrl, max: 2 })));
        // an idle connection the server closes must not crash the test run: the next query reconnects
        pool.on('error', () => {});
      }
      return (await pool.query(text, values)).rows;
    },
    async stop() {
      await running?.stop();
      for (const pool of pools.values()) await pool.end();
      await chainsService.stop();
      await blockService.stop();
      await nc.close();
      await vault.stop();
      await infra.stop();
    },
  };
  return f;
}

export interface StreamMessage {
  seq: number;
  subject: string;
  msgId: string | undefined;
  tx: Transaction;
}

/** Every message of the TX stream (tests keep it small). */
export async function admittedMessages(f: Fixture): Promise<StreamMessage[]> {
  const info = await f.jsm.streams.info(STREAMS.tx.name);
  const out: StreamMessage[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await f.jsm.streams.getMessage(STREAMS.tx.name, { seq });
    if (!m) continue;
    // a message holds one transaction, or a list of those published together; a private chain's sealed with its key
    const chainId = m.subject.slice('tx.admitted.'.length);
    const body = decodeJson<Transaction | Transaction[]>(chainId === 'main' ? m.data : openInEpoch(chainKeyOf(f.chains, chainId), m.data, m.subject));
    for (const tx of Array.isArray(body) ? body : [body]) out.push({ seq, subject: m.subject, msgId: m.header.get('Nats-Msg-Id') || undefined, tx });
  }
  return out;
}

function chainKeyOf(chains: Fixture['chains'], chainId: string): Uint8Array {
  let key = chains.keys.get(chainId);
  if (!key) chains.keys.set(chainId, (key = generateChainKey()));
  return key;
}

/** The msgID of a message of several transactions, computed here as the outbox's documentation says. */
export function listMsgId(hashes: string[]): string {
  return `list:${createHash('sha256').update(hashes.join(',')).digest('hex')}`;
}

export async function admittedByHash(f: Fixture, hashes: string[]): Promise<Map<string, StreamMessage[]>> {
  const wanted = new Set(hashes);
  const found = new Map<string, StreamMessage[]>();
  for (const m of await admittedMessages(f)) {
    if (!wanted.has(m.tx.hash)) continue;
    found.set(m.tx.hash, [...(found.get(m.tx.hash) ?? []), m]);
  }
  return found;
}

// ---------------------------------------------------------------------------
// ethers as the outside oracle of the signed bytes (docs/conventions.md "Raw transactions: the signed bytes")

export interface Fields {
  nonce: number | bigint;
  gasPrice: number | bigint;
  gasLimit: number | bigint;
  to: string | null;
  value: number | bigint;
  /** hex without 0x */
  initOrData: string;
  chainId?: string;
  metadata?: Record<string, string>;
}

const hex = (h: string) => `0x${h.replace(/^0x/, '')}`;

function baseList(f: Fields): unknown[] {
  return [toBeArray(f.nonce), toBeArray(f.gasPrice), toBeArray(f.gasLimit), f.to ? hex(f.to) : '0x', toBeArray(f.value), hex(f.initOrData)];
}

function metadataList(metadata: Record<string, string> = {}): unknown[] {
  return Object.keys(metadata)
    .sort()
    .map((k) => [toUtf8Bytes(k), toUtf8Bytes(metadata[k])]);
}

/** The digest a signer signs, by ethers' RLP and Keccak: `platform`, `literal` or `metadata` form. */
export function ethersSigningHash(f: Fields, form: 'platform' | 'literal' | 'metadata' = 'platform'): string {
  const list = baseList(f);
  if (f.chainId) list.push(hex(f.chainId));
  else if (form === 'literal') list.push('0x');
  if (form === 'metadata') list.push(metadataList(f.metadata));
  return keccak256(encodeRlp(list as never));
}

/** The transaction hash by ethers: the signed fields, chainId or empty, v, r, s, sorted metadata pairs. */
export function ethersTransactionHash(f: Fields, sig: { r: string; s: string; v: number }): string {
  const list = [...baseList(f), f.chainId ? hex(f.chainId) : '0x', toBeArray(sig.v), toBeArray(BigInt(hex(sig.r))), toBeArray(BigInt(hex(sig.s))), metadataList(f.metadata)];
  return keccak256(encodeRlp(list as never)).slice(2);
}

export function fieldsOf(tx: Transaction): Fields {
  return {
    nonce: tx.nonce,
    gasPrice: BigInt(tx.gasPrice),
    gasLimit: BigInt(tx.gasLimit),
    to: tx.to,
    value: BigInt(tx.value),
    initOrData: tx.initOrData,
    chainId: tx.chainId,
    metadata: tx.metadata,
  };
}


// ---------------------------------------------------------------------------
// Playing the block service

export function receipt(tx: { hash: string; from: string }, overrides: Partial<Receipt> = {}): Receipt {
  return {
    transactionHash: tx.hash,
    from: tx.from,
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
    ...overrides,
  };
}

export function execResult(height: number, receipts: Receipt[], chainId = ''): ExecResult {
  return {
    chainId,
    block: { number: height, hash: (height.toString(16) + 'b').padStart(64, 'b'), timestamp: 1_700_000_000 + height, parentHash: '0'.repeat(64), stateRoot: '5'.repeat(64) },
    receipts,
  };
}

/** Publishes like the block service: `exec.<chain>`, msgID `<chain>:<height>`. */
export async function publishExec(f: Fixture, exec: ExecResult, msgID = `${exec.chainId || 'main'}:${exec.block.number}`): Promise<number> {
  const ack = await f.js.publish(`exec.${exec.chainId || 'main'}`, JSON.stringify(exec), { msgID });
  return ack.seq;
}

export async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
