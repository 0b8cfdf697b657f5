// The EVM's read model against SolidVM's: the same sources, the same
// transactions (same senders, nonces, hashes and blocks), run once by SolidVM
// and once by the EVM with its storage decoded (what the block service does
// with INDEX_EVM), each fed to its own cirrus on real NATS and PostgreSQL.
// Every table — contract, history, side tables of arrays and mappings,
// events — must hold the same rows, and the catalogue the same columns and
// types. SolidVM's side is the reference.
import { loadConfig, type Receipt } from '@platform/common';
import { createEvm } from '@platform/evm';
import { Chain, Harness, OTHER, SENDER, exec } from './helpers.js';

/** the EVM as the block service runs it with INDEX_EVM: storage decoded */
const indexingEvm = createEvm({ decodeStorage: true });

/** helpers' Chain run by the EVM, storage decoded: the same contexts, so the same hashes and addresses. */
class EvmChain extends Chain {
  async createEvm(block: number, from: string, src: string, contractName: string, args: unknown): Promise<{ r: Receipt; address: string }> {
    const c = this.ctx(block, from);
    const o = await indexingEvm.createContract(this.state, c, { creator: from, src, contractName, args, nonce: this.nonce(from) });
    return { r: this.receipt(c, from, o, 'EVM'), address: o.address! };
  }

  async invokeEvm(block: number, from: string, address: string, method: string, args: unknown): Promise<Receipt> {
    const c = this.ctx(block, from);
    return this.receipt(c, from, await indexingEvm.callContract(this.state, c, { caller: from, address, method, args }), 'EVM');
  }
}

// valid for both VMs: visibility on every function, no SolidVM-only types
const STORE = `
pragma solidity ^0.8.0;
contract Store {
  enum Status { Draft, Active, Retired }
  struct P { uint x; string s; bool b; }
  struct Packed { uint8 a; bool f; address who; int16 n; Status st; }
  struct Deep { P inner; uint[] list; Packed pk; uint[2] pair; }
  P p;
  Deep deep;
  P[] ps;
  uint[] arr;
  uint[3] fx;
  uint8[] small;
  int16[5] shorts;
  string[] strs;
  bytes[] blobs;
  uint[][] grid;
  P[2] pair;
  Status st;
  int neg;
  bool on;
  bytes4 tag;
  string title;
  bytes data;
  mapping(address => uint) balances;
  mapping(uint => string) names;
  mapping(string => bool) flags;
  mapping(Status => uint) byStatus;
  mapping(address => mapping(uint => bool)) nested;
  mapping(uint => mapping(string => mapping(int => uint))) triple;
  mapping(uint => P) structs;
  mapping(uint => uint[]) marr;
  mapping(uint => Deep) deeps;
  mapping(bytes32 => int) b32;
  mapping(bytes4 => bytes) byTag;
  mapping(bytes => uint) byBytes;
  mapping(bool => uint8) byBool;
  mapping(int => int8) byInt;
  mapping(uint => Packed) packs;
  mapping(uint => string[]) words;
  event Filled(uint n, string s, bool b, address who);

  constructor(uint start) { arr.push(start); names[start] = "start"; title = "store"; }

  function fill(address who, uint k, string memory s) public {
    balances[msg.sender] = 5; balances[who] = 6;
    names[7] = "seven"; names[k] = "a long name that takes more than one storage slot to hold";
    flags["a,b"] = true; flags[s] = true; byStatus[Status.Active] = 2; byStatus[Status.Retired] = 3;
    nested[msg.sender][3] = true; nested[who][k] = true;
    triple[1]["x"][-2] = 9; triple[k][s][k == 0 ? int(0) : -int(k)] = 10;
    structs[1] = P(4, "four", true); structs[k].s = s;
    arr.push(1); arr.push(2); fx[1] = 9; fx[2] = k;
    p = P(1, "s", true); ps.push(P(2, "t", false)); ps.push(P(k, s, true));
    marr[1].push(5); marr[1].push(6); marr[k].push(k);
    small.push(3); small.push(4); small.push(255); shorts[1] = -7; shorts[4] = 300;
    strs.push("hello"); strs.push("a long string in an array that needs two slots at least, surely");
    blobs.push(hex"0102"); grid.push(); grid[0].push(5); grid.push(); grid[1].push(6); grid[1].push(7);
    pair[1] = P(8, "eight", true);
    deep.inner = P(11, "deep", true); deep.list.push(12); deep.pk = Packed(1, true, who, -3, Status.Active); deep.pair[1] = 13;
    deeps[k].inner.x = 14; deeps[k].list.push(15); deeps[2].pk.n = -16; deeps[2].pair[0] = 17;
    b32[bytes32(uint(1))] = -3; b32[keccak256(bytes(s))] = 4;
    byTag[0x01020304] = hex"aabb"; byTag[bytes4(keccak256(bytes(s)))] = bytes(s);
    byBytes[hex"0102"] = 1; byBytes[bytes(s)] = 2;
    byBool[true] = 2; byBool[k > 100] = 3;
    byInt[-3] = -4; byInt[int(k)] = 5;
    packs[k] = Packed(7, true, who, -8, Status.Retired); packs[3].a = 9;
    words[k].push(s); words[k].push("two");
    st = Status.Retired; neg = -5; on = true; tag = 0x0a0b0c0d; data = hex"00ff";
    emit Filled(k, s, true, who);
  }

  function clear(address who, uint k) public {
    delete balances[msg.sender]; arr.pop(); delete structs[1]; names[7] = ""; marr[1].pop(); nested[msg.sender][3] = false;
    delete triple[1]["x"][-2]; small.pop(); strs.pop(); grid[1].pop(); delete pair[1]; delete deep.inner; deep.list.pop();
    delete deeps[k]; packs[k].f = false; packs[k].who = address(0); words[k].pop(); delete byTag[0x01020304]; byBool[true] = 0;
    ps.pop(); balances[who] = 0; on = false; delete fx; title = "";
  }

  function setField(uint k, uint x) public { structs[k].x = x; deeps[k].pk.st = Status.Active; }
}`;

const solid = new Harness();
const evm = new Harness();

async function both(run: (h: Harness, vm: 'SolidVM' | 'EVM') => Promise<void>): Promise<void> {
  await Promise.all([run(solid, 'SolidVM'), run(evm, 'EVM')]);
}

beforeAll(async () => {
  const config = loadConfig({ LOG_LEVEL: 'silent', INDEX_EVM: 'true' });
  await both((h, vm) => h.start(`cirrus_oracle_${vm.toLowerCase()}`, { config }));
}, 120_000);

afterAll(() => both((h) => h.stop()));

describe('the same contract through SolidVM and through the EVM', () => {
  const svm = new Chain();
  const ethm = new EvmChain();
  let address = '';

  /** One block of the same transactions on both VMs, each published to its cirrus. */
  async function block(n: number, txs: Array<{ create?: [string, unknown]; call?: [string, unknown]; from?: string }>): Promise<void> {
    const a: Receipt[] = [];
    const b: Receipt[] = [];
    for (const tx of txs) {
      const from = tx.from ?? SENDER;
      if (tx.create) {
        const s = svm.create(n, from, STORE, tx.create[0], tx.create[1]);
        const e = await ethm.createEvm(n, from, STORE, tx.create[0], tx.create[1]);
        expect(e.address).toBe(s.address);
        address = s.address;
        a.push(s.r);
        b.push(e.r);
      } else {
        a.push(svm.invoke(n, from, address, tx.call![0], tx.call![1]));
        b.push(await ethm.invokeEvm(n, from, address, tx.call![0], tx.call![1]));
      }
    }
    await solid.publish(exec(n, a));
    await evm.publish(exec(n, b));
    await both((h) => h.settled());
  }

  async function expectSameModel(): Promise<void> {
    const [a, b] = await Promise.all([solid.dump(), evm.dump()]);
    expect(Object.keys(b)).toEqual(Object.keys(a));
    for (const name of Object.keys(a)) expect([name, b[name]]).toEqual([name, a[name]]);
  }

  test('creation: the contract row, its struct columns and its side tables', async () => {
    await block(1, [{ create: ['Store', { start: 42 }] }]);
    await expectSameModel();
    expect((await evm.search('Store-arr', 'select=index,value')).body).toEqual([{ index: 0, value: 42 }]);
  });

  test('mapping entries of every key type, nested mappings, mappings to structs and arrays, packed elements, long strings', async () => {
    await block(2, [{ call: ['fill', { who: OTHER, k: 21, s: 'key, "quoted"' }] }]);
    await expectSameModel();
    expect((await evm.search('Store-triple', 'select=key,value&order=key')).body).toEqual([
      { key: 1, value: { x: { '-2': 9 } } },
      { key: 21, value: { 'key, "quoted"': { '-21': 10 } } },
    ]);
    expect((await evm.search('Store-deeps', 'key=eq.21&select=value')).body).toEqual([
      { value: { inner: { x: 14, s: '', b: false }, list: [15], pk: { a: 0, f: false, who: '0'.repeat(40), n: 0, st: 0 }, pair: [0, 0] } },
    ]);
    expect((await evm.search('Store', 'select=deep->pk->>n,p')).body).toEqual([{ n: '-3', p: { x: 1, s: 's', b: true } }]);
  });

  test('deletes, pops, cleared fields and entries set back to zero remove rows as SolidVM does', async () => {
    await block(3, [{ call: ['clear', { who: OTHER, k: 21 }] }, { call: ['setField', { k: 2, x: 11 }], from: OTHER }]);
    await expectSameModel();
    expect((await evm.search('Store-balances', 'select=count')).body).toEqual([{ count: 0 }]);
  });

  test('the same again after more blocks: history and events included', async () => {
    await block(4, [{ call: ['fill', { who: SENDER, k: 0, s: '' }] }, { call: ['fill', { who: OTHER, k: 101, s: 'x' }], from: OTHER }]);
    await block(5, [{ call: ['clear', { who: SENDER, k: 0 }] }]);
    await expectSameModel();
    expect(((await evm.search('history@Store', 'select=block_number')).body as unknown[]).length).toBe(7);
    expect((await evm.search('Store.Filled', 'select=n,s,b&order=id')).body).toEqual([
      { n: '21', s: 'key, "quoted"', b: 'True' },
      { n: '0', s: '', b: 'True' },
      { n: '101', s: 'x', b: 'True' },
    ]);
  });
});
