// Indexing benchmarks (the "indexing"): real NATS JetStream and
// PostgreSQL, cirrus started in this process, ExecResults published to the
// EXEC stream as the block service publishes them.
// - state updates applied per second, in blocks of 500 transactions (each a
//   state change of one of 1,000 contracts: the row update and a history row),
//   the best of three rounds of 20,000;
// - the lag from a block's publication to its rows being committed (queryable)
//   at 2,000 transactions per second (blocks of 20 every 10 ms), p50 and p99.
// The contracts are created by SolidVM (genuine contractsCreated and xabi);
// the updates are their state changes with new values, so the VM's cost is
// not measured here.
// `npm run bench -- indexing`, or `node --import tsx services/cirrus/bench/indexing.bench.ts`.
import { pathToFileURL } from 'node:url';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { STREAMS, connectBus, ensureStream } from '@platform/bus';
import { createLogger, loadConfig, type ContractStateChange, type ExecResult, type Receipt } from '@platform/common';
import { startTestInfra } from '@platform/launcher';
import { MemoryWorldState, createContract } from '@platform/solidvm';
import { startCirrus } from '../src/index.js';

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
}

const CONTRACTS = 1_000;
const BLOCK_TXS = 500;
const BLOCKS = 40;
const ROUNDS = 3;
const LAG_RATE = 2_000;
const LAG_BLOCK_TXS = 20;
const LAG_SECONDS = 5;

const SRC = `
contract Item {
  string name;
  uint qty;
  bool active;
  address owner;
  mapping(address => uint) balances;
  constructor(string _name, uint _qty) { name = _name; qty = _qty; owner = msg.sender; active = true; }
}`;

const SENDER = '11'.repeat(20);
const hex64 = (n: number): string => n.toString(16).padStart(64, '0');

function receipt(hash: number, change: ContractStateChange, created: Receipt['contractsCreated'] = []): Receipt {
  return {
    transactionHash: hex64(hash),
    from: SENDER,
    status: 'Success',
    message: 'Success!',
    kind: 'SolidVM',
    response: '[]',
    returnValues: [],
    contractsCreated: created,
    contractsDeleted: [],
    gasUsed: '0',
    etherUsed: '0',
    stateChanges: [change],
    events: [],
    time: 0,
    trace: '',
  };
}

const block = (number: number, receipts: Receipt[]): ExecResult => ({
  chainId: '',
  block: { number, hash: hex64(number + 0xb000000), timestamp: 1_700_000_000 + number, parentHash: hex64(number + 0xafffff), stateRoot: '00'.repeat(32) },
  receipts,
});

export async function run(): Promise<BenchResult[]> {
  const infra = await startTestInfra({ nats: true, postgres: true });
  const logger = createLogger('cirrus-bench', 'silent');
  const nc = await connectBus({ url: infra.nats!.url, name: 'cirrus-bench', logger });
  const applied = new Map<number, number>();
  let waiter: { seq: number; resolve: () => void } | undefined;
  const cirrus = await startCirrus({
    config: loadConfig({ LOG_LEVEL: 'silent' }),
    logger,
    natsUrl: infra.nats!.url,
    databaseUrl: await infra.postgres!.createDatabase('cirrus_bench'),
    onApplied: (seq) => {
      applied.set(seq, performance.now());
      if (waiter && seq >= waiter.seq) waiter.resolve();
    },
  });
  const until = (seq: number) => (applied.has(seq) ? Promise.resolve() : new Promise<void>((resolve) => (waiter = { seq, resolve })));
  try {
    await ensureStream(await jetstreamManager(nc), STREAMS.exec);
    const js = jetstream(nc);
    let height = 0;
    let hash = 0;
    const publish = async (e: ExecResult | { number: number; text: string }) =>
      'text' in e ? (await js.publish('exec.main', e.text, { msgID: `main:${e.number}` })).seq : (await js.publish('exec.main', JSON.stringify(e), { msgID: `main:${e.block.number}` })).seq;

    // the contracts, created by SolidVM
    const state = new MemoryWorldState();
    const templates: ContractStateChange[] = [];
    const creations: Receipt[] = [];
    for (let i = 0; i < CONTRACTS; i++) {
      const ctx = { chainId: '', block: { number: 1, timestamp: 1, coinbase: '' }, tx: { hash: hex64(++hash), origin: SENDER, gasPrice: 0n, gasLimit: 10_000_000n, value: 0n }, identity: null, protocol: { stepLimit: 1_000_000, gasTableVersion: 1 }, gasEnabled: false };
      const o = createContract(state, ctx, { creator: SENDER, src: SRC, contractName: 'Item', args: { _name: `item ${i}`, _qty: i }, nonce: BigInt(i) });
      if (!o.ok) throw new Error(o.message);
      templates.push(o.stateChanges[0]);
      creations.push(receipt(hash, o.stateChanges[0], o.contractsCreated));
    }
    for (let i = 0; i < creations.length; i += BLOCK_TXS) await until(await publish(block(++height, creations.slice(i, i + BLOCK_TXS))));

    const update = (n: number): Receipt => {
      const t = templates[n % CONTRACTS];
      return receipt(++hash, { ...t, created: false, state: { ...t.state, qty: String(n), active: n % 2 === 0 }, diff: { '.qty': String(n) } });
    };

    // 1. throughput: every block published at once (serialised beforehand: the
    //    block service is another process), timed until the last is applied;
    //    the best of three rounds, the host being shared and noisy
    let perSecond = 0;
    let last = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const blocks = Array.from({ length: BLOCKS }, (_, b) => {
        const e = block(++height, Array.from({ length: BLOCK_TXS }, (_, i) => update(b * BLOCK_TXS + i)));
        return { number: e.block.number, text: JSON.stringify(e) };
      });
      const started = performance.now();
      for (const b of blocks) last = await publish(b);
      await until(last);
      perSecond = Math.max(perSecond, (BLOCKS * BLOCK_TXS * 1000) / (performance.now() - started));
    }

    // 2. lag at 2,000 transactions per second
    const sent = new Map<number, number>();
    const interval = (LAG_BLOCK_TXS * 1000) / LAG_RATE;
    const begin = performance.now();
    for (let i = 0; i < (LAG_SECONDS * LAG_RATE) / LAG_BLOCK_TXS; i++) {
      const due = begin + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const b = block(++height, Array.from({ length: LAG_BLOCK_TXS }, (_, j) => update(i * LAG_BLOCK_TXS + j)));
      const t = performance.now();
      last = await publish(b);
      sent.set(last, t);
    }
    await until(last);
    const lags = [...sent].map(([seq, t]) => applied.get(seq)! - t).sort((a, b) => a - b);
    const pct = (p: number) => lags[Math.min(lags.length - 1, Math.floor(lags.length * p))];
    return [
      { name: `indexing: state updates applied (blocks of ${BLOCK_TXS})`, value: Math.round(perSecond), unit: 'updates/s' },
      { name: `indexing: lag block → committed at ${LAG_RATE} tx/s, p50`, value: pct(0.5), unit: 'ms' },
      { name: `indexing: lag block → committed at ${LAG_RATE} tx/s, p99`, value: pct(0.99), unit: 'ms' },
    ];
  } finally {
    await cirrus.stop();
    await nc.drain();
    await infra.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await run()) console.log(`${r.name.padEnd(60)} ${(Number.isInteger(r.value) ? r.value.toLocaleString('en-US') : r.value.toFixed(1)).padStart(10)} ${r.unit}`);
}
