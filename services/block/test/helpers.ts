// Fixtures of the block service tests: a real NATS (startTestInfra), admitted
// transactions built and signed here, and collectors of what the service
// publishes on block.main and exec.main.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JetStreamClient } from '@nats-io/jetstream';
import { DEFAULT_NODE_NAME, createLogger, loadConfig, type Block, type ExecResult, type Genesis, type Logger, type Receipt, type Transaction, type Validator } from '@platform/common';
import { STREAMS, SUBJECTS, busJetStream, connectBus, encodeJson, type BusJetStream, type NatsConnection } from '@platform/bus';
import { bytesToHex, generateKeyPair, sealInEpoch, sign, signingHash, transactionHash, type KeyPair } from '@platform/crypto';
import { validatorSetGenesisContract } from '@platform/identity';
import { newMainGenesis, startTestInfra, type TestInfra } from '@platform/launcher';
import { sealGenesisFor } from '../src/chain/chain-keys.js';
import { startBlockService, type BlockServiceOptions, type RunningBlockService } from '../src/index.js';
import { loadNodeKey } from '../src/node-key.js';

export const COUNTER = `
contract Counter {
  uint public count;
  constructor(uint start) { count = start; }
  function add(uint n) public returns (uint) {
    require(n > 0, "n must be positive");
    count += n;
    return count;
  }
}`;

const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');

/** An account that signs its own transactions, nonces counted here. */
export class Account {
  readonly key: KeyPair = generateKeyPair();
  nonce = 0;
  get address(): string {
    return this.key.address;
  }

  tx(fields: { to: string | null; initOrData?: string; metadata?: Record<string, string>; value?: bigint; gasLimit?: bigint; gasPrice?: bigint; nonce?: number; chainId?: string }): Transaction {
    const nonce = fields.nonce ?? this.nonce++;
    const unsigned = {
      nonce: BigInt(nonce),
      gasPrice: fields.gasPrice ?? 1n,
      gasLimit: fields.gasLimit ?? 10_000_000n,
      to: fields.to,
      value: fields.value ?? 0n,
      initOrData: Buffer.from(fields.initOrData ?? '', 'hex'),
      chainId: fields.chainId || null,
      metadata: fields.metadata ?? {},
    };
    const sig = sign(signingHash(unsigned, 'platform'), this.key.privateKey);
    return {
      hash: transactionHash(unsigned, sig),
      chainId: fields.chainId ?? '',
      from: this.address,
      nonce,
      gasPrice: unsigned.gasPrice.toString(),
      gasLimit: unsigned.gasLimit.toString(),
      value: unsigned.value.toString(),
      to: fields.to,
      initOrData: fields.initOrData ?? '',
      metadata: unsigned.metadata,
      r: bytesToHex(sig.r),
      s: bytesToHex(sig.s),
      v: sig.v,
      signingForm: 'platform',
      origin: 'vault',
      submitter: { username: 'alice', organization: 'Org' },
      admittedAt: Date.now(),
    };
  }

  create(src: string, name: string, args: unknown = {}): Transaction {
    return this.tx({ to: null, initOrData: hex(src), metadata: { VM: 'SolidVM', name, args: JSON.stringify(args) } });
  }

  call(to: string, funcName: string, args: unknown = {}, nonce?: number): Transaction {
    return this.tx({ to, metadata: { VM: 'SolidVM', funcName, args: JSON.stringify(args) }, ...(nonce === undefined ? {} : { nonce }) });
  }
}

/** Keeps every message of a subject from the start of its stream. */
export class Collector<T> {
  readonly items: Array<{ seq: number; value: T }> = [];
  private waiters: Array<() => void> = [];
  private stopper: { stop(): unknown } | null = null;

  static async start<T>(js: JetStreamClient, stream: string, subject: string): Promise<Collector<T>> {
    const c = new Collector<T>();
    const consumer = await js.consumers.get(stream, { filter_subjects: subject });
    const messages = await consumer.consume();
    c.stopper = messages;
    void (async () => {
      for await (const m of messages) {
        c.items.push({ seq: m.seq, value: m.json<T>() });
        for (const w of c.waiters.splice(0)) w();
      }
    })();
    return c;
  }

  get values(): T[] {
    return this.items.map((i) => i.value);
  }

  /** Waits until `ok(values)` holds. */
  async until(ok: (values: T[]) => boolean, timeoutMs = 15_000): Promise<T[]> {
    const deadline = Date.now() + timeoutMs;
    while (!ok(this.values)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; collected ${this.items.length}: ${JSON.stringify(this.values).slice(0, 2000)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.values;
  }

  stop(): void {
    this.stopper?.stop();
  }
}

export function receiptsOf(execs: ExecResult[]): Receipt[] {
  return execs.flatMap((e) => e.receipts);
}

export function receiptFor(execs: ExecResult[], hash: string): Receipt | undefined {
  return receiptsOf(execs).find((r) => r.transactionHash === hash);
}

export interface BlockFixture {
  infra: TestInfra;
  nc: NatsConnection;
  /** the network's streams' client (transactions, blocks, geneses) */
  js: JetStreamClient;
  /** both scopes: the node's results are in `bus.node` */
  bus: BusJetStream;
  blocks: Collector<Block>;
  execs: Collector<ExecResult>;
  /**
   * The blocks collected once every block these results (default: all
   * collected so far) were executed from is among them: the blocks' consumer
   * is a subscription of its own and may trail the results'.
   */
  blocksOf(execs?: ExecResult[]): Promise<Block[]>;
  /** a node's data dir under the infra's */
  dataDir(name?: string): string;
  /**
   * Starts a node's block service; its genesis (balances `accounts`, none by
   * default) is written first unless the node's data dir already has one, as
   * the launcher does.
   */
  start(options?: Partial<BlockServiceOptions> & { env?: Record<string, string>; name?: string; accounts?: Array<{ address: string; balance: bigint }> }): Promise<RunningBlockService>;
  publish(...txs: Transaction[]): Promise<void>;
  /**
   * Publishes a private chain's genesis as the chains service does: sealed,
   * its key wrapped for the node (data dir `name`) whose block key is read
   * (created) here. Answers the chain's key.
   */
  publishGenesis(genesis: Genesis, name?: string): Promise<Uint8Array>;
  /** Publishes a private chain's admitted transaction sealed with its key, as the transaction service does. */
  publishPrivate(chainKey: Uint8Array, tx: Transaction): Promise<void>;
  /** publishes as a different message (its own msgID), as an outbox republished past the duplicate window does */
  publishAgain(tx: Transaction): Promise<void>;
  stop(): Promise<void>;
}

/** The main chain's genesis in `dataDir`, unless there is one (the launcher's job on a node: its ensureMainGenesis); `validators` make it a network's. */
export function writeGenesis(dataDir: string, accounts: Array<{ address: string; balance: bigint }> = [], validators?: Validator[]): void {
  const path = join(dataDir, 'genesis.json');
  if (existsSync(path)) return;
  mkdirSync(dataDir, { recursive: true });
  const genesis = newMainGenesis(accounts.map((a) => ({ address: a.address, balance: a.balance.toString() })));
  writeFileSync(path, JSON.stringify(validators ? { ...genesis, contracts: [...genesis.contracts, validatorSetGenesisContract(validators)], validators } : genesis));
}

export const quietLogger = (): Logger => createLogger('block', process.env.TEST_LOG_LEVEL ?? 'silent');

export async function blockFixture(): Promise<BlockFixture> {
  const infra = await startTestInfra({ nats: true });
  const nc = await connectBus({ url: infra.nats!.url, name: 'block-test' });
  const bus = await busJetStream(nc, { node: DEFAULT_NODE_NAME, replicas: 1 });
  for (const spec of [STREAMS.tx, STREAMS.blocks, STREAMS.exec]) await bus.ensure(spec);
  // the network's streams: appends reach them through the account's import, the API through its prefix
  const js = bus.network.js;
  const blocks = await Collector.start<Block>(js, STREAMS.blocks.name, 'block.main');
  const execs = await Collector.start<ExecResult>(bus.node.js, STREAMS.exec.name, 'exec.main');
  const running: RunningBlockService[] = [];
  const fixture: BlockFixture = {
    infra,
    nc,
    js,
    bus,
    blocks,
    execs,
    blocksOf(results = execs.values) {
      const wanted = results.filter((e) => e.block.number > 0).map((e) => e.block.hash);
      return blocks.until((bs) => wanted.every((hash) => bs.some((b) => b.hash === hash)));
    },
    dataDir: (name = 'node') => join(infra.dataDir, name),
    async start(options = {}) {
      const { env = {}, name, accounts = [], ...rest } = options;
      const dataDir = fixture.dataDir(name);
      writeGenesis(dataDir, accounts);
      const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
      const service = await startBlockService({ config, logger: quietLogger(), natsUrl: infra.nats!.url, dataDir, ...rest });
      running.push(service);
      return service;
    },
    async publish(...txs) {
      for (const tx of txs) await js.publish('tx.admitted.main', encodeJson(tx), { msgID: tx.hash });
    },
    async publishGenesis(genesis, name) {
      const key = loadNodeKey(join(fixture.dataDir(name), 'block', 'node.key'));
      const sealed = sealGenesisFor(genesis, [{ node: DEFAULT_NODE_NAME, publicKey: key.publicKey }]);
      await js.publish(SUBJECTS.chains.genesis(genesis.chainId), encodeJson(sealed.sealed), { msgID: genesis.chainId });
      return sealed.key;
    },
    async publishPrivate(chainKey, tx) {
      const subject = SUBJECTS.tx.admitted(tx.chainId);
      await js.publish(subject, sealInEpoch(0, chainKey, encodeJson(tx), subject), { msgID: tx.hash });
    },
    async publishAgain(tx) {
      await js.publish('tx.admitted.main', encodeJson(tx), { msgID: `${tx.hash}:again:${Math.random()}` });
    },
    async stop() {
      for (const s of running) await s.stop();
      blocks.stop();
      execs.stop();
      await nc.close();
      await infra.stop();
    },
  };
  return fixture;
}
