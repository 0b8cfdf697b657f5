// Storage decoded for indexing (`decodeStorage`): every changed path in
// SolidVM's form, checked against SolidVM running the same source and the
// same calls, and the cases SolidVM cannot show — constant keys hashed by
// solc's optimizer, constructors of contracts created with `new`, a custom
// storage base, slots no preimage explains. Without the option nothing of it
// is computed or recorded.
import { callContract as solidCall, createContract as solidCreate } from '@platform/solidvm';
import { keccak256Hex } from '@platform/crypto';
import type { ExecOutcome } from '../src/index.js';
import { ALICE, BOB, TOKEN, callContract, context, createContract, evm as vm, freshState } from './helpers.js';
import { acquire, release } from '../src/engine.js';
import { literalsOf } from '../src/folded.js';

const ok = (o: ExecOutcome) => {
  if (!o.ok) throw new Error(`${o.code}: ${o.message}`);
  return o;
};
const DECODE = { decodeStorage: true };
/** the named part of a diff (the storage paths), without the raw slots */
const paths = (diff: Record<string, unknown>) => Object.fromEntries(Object.entries(diff).filter(([k]) => k.startsWith('.')));
const word = (n: bigint | number | string) => BigInt(n).toString(16).padStart(64, '0');

const SHOP = `
pragma solidity ^0.8.0;
contract Shop {
  enum Status { Draft, Active, Retired }
  struct P { uint x; string s; bool b; }
  struct Q { uint8 a; bool f; address who; int16 n; }
  P p;
  P[] ps;
  uint[] arr;
  uint[3] fx;
  uint8[] small;
  string[] strs;
  uint[][] grid;
  mapping(address => uint) balances;
  mapping(uint => string) names;
  mapping(string => bool) flags;
  mapping(Status => uint) byStatus;
  mapping(address => mapping(uint => bool)) nested;
  mapping(uint => P) structs;
  mapping(uint => Q) packs;
  mapping(uint => uint[]) marr;
  mapping(bytes32 => int) b32;
  mapping(bytes => uint) byBytes;
  mapping(int8 => bool) byInt;
  Status st;
  int neg;
  function fill(uint k, string memory s) public {
    balances[msg.sender] = 5; names[7] = "seven"; names[k] = "a long name that takes more than one storage slot to hold";
    flags["a,b"] = true; flags[s] = true; byStatus[Status.Active] = 2;
    nested[msg.sender][3] = true; nested[msg.sender][k] = true; structs[1] = P(4, "four", true); structs[k].b = true;
    packs[k] = Q(7, true, msg.sender, -8);
    arr.push(1); arr.push(2); fx[1] = 9; p = P(1, "s", true); ps.push(P(2, "t", false));
    marr[1].push(5); marr[1].push(6); marr[k].push(k); small.push(3); small.push(4); strs.push("hello");
    grid.push(); grid[0].push(8);
    b32[bytes32(uint(1))] = -3; b32[keccak256(bytes(s))] = 3; byBytes[bytes(s)] = 1; byInt[-1] = true; st = Status.Retired; neg = -5;
  }
  function clear(uint k) public {
    delete balances[msg.sender]; arr.pop(); delete structs[1]; names[7] = ""; marr[1].pop(); nested[msg.sender][3] = false;
    packs[k].f = false; small.pop(); grid[0].pop(); byInt[-1] = false; delete names[k];
  }
  function setField(uint k, uint x) public { structs[k].x = x; }
}`;

describe('decoded paths equal SolidVM\'s for the same source and calls', () => {
  test('creation, fills, deletes and pops: the same paths with the same stored text', async () => {
    const evm = freshState();
    const svm = freshState();
    const made = ok(await createContract(evm, context(), { creator: ALICE, src: SHOP, contractName: 'Shop', args: {} }, DECODE));
    const ref = solidCreate(svm, context(), { creator: ALICE, src: SHOP, contractName: 'Shop', args: {}, nonce: 0n });
    expect(made.address).toBe(ref.address);
    expect(made.stateChanges[0].state).toEqual(ref.stateChanges[0].state);
    const calls: Array<[string, unknown]> = [
      ['fill', { k: 21, s: 'key, "q"' }],
      ['setField', { k: 2, x: 11 }],
      ['clear', { k: 21 }],
      ['fill', { k: 0, s: '' }],
      ['clear', { k: 0 }],
    ];
    for (const [method, args] of calls) {
      const e = ok(await callContract(evm, context(), { caller: BOB, address: made.address!, method, args }, DECODE));
      const s = solidCall(svm, context(), { caller: BOB, address: ref.address!, method, args });
      expect([method, paths(e.stateChanges[0].diff)]).toEqual([method, paths(s.stateChanges[0].diff)]);
      // state: simple variables and structs always, arrays when the call changed them
      const changed = (name: string) => Object.keys(s.stateChanges[0].diff).some((k) => k.startsWith(`.${name}[`) || k.startsWith(`.${name}.length`));
      const expected = Object.fromEntries(Object.entries(s.stateChanges[0].state).filter(([name, v]) => !Array.isArray(v) || changed(name)));
      expect(e.stateChanges[0].state).toEqual(expected);
    }
  });

  test('the raw slots are still in the diff beside the paths', async () => {
    const s = freshState();
    const { address } = ok(await createContract(s, context(), { creator: ALICE, src: TOKEN, contractName: 'Token', args: { _name: 'Gold', supply: 1000 } }, DECODE));
    const t = ok(await callContract(s, context(), { caller: ALICE, address: address!, method: 'transfer', args: { to: BOB, amount: 10 } }, DECODE));
    const diff = t.stateChanges[0].diff;
    expect(paths(diff)).toEqual({ [`.balanceOf<${ALICE}>`]: '990', [`.balanceOf<${BOB}>`]: '10' });
    // balanceOf is slot 3: owner and paused share slot 2
    expect(diff[keccak256Hex(Buffer.from(word('0x' + BOB) + word(3), 'hex'))]).toBe(word(10));
  });
});

const RANDOM = `
pragma solidity ^0.8.0;
contract Mixed {
  struct Rec { uint8 a; string s; uint16[3] trio; bool f; }
  mapping(address => uint) balances;
  mapping(uint => string) names;
  mapping(uint => uint[]) lists;
  mapping(uint => Rec) recs;
  mapping(address => mapping(int8 => bool)) nested;
  mapping(bytes32 => bytes) blobs;
  mapping(uint => uint[][]) grids;
  uint16[] top;
  Rec last;
  function setBal(address a, uint v) public { balances[a] = v; }
  function setName(uint k, string memory s) public { names[k] = s; }
  function pushList(uint k, uint v) public { lists[k].push(v); }
  function popList(uint k) public { if (lists[k].length > 0) lists[k].pop(); }
  function setRec(uint k, uint8 a, string memory s, uint16 t) public { recs[k].a = a; recs[k].s = s; recs[k].trio[k % 3] = t; recs[k].f = a % 2 == 1; last = recs[k]; }
  function delRec(uint k) public { delete recs[k]; }
  function setNested(address a, int8 i, bool b) public { nested[a][i] = b; }
  function pushTop(uint16 v) public { top.push(v); }
  function popTop() public { if (top.length > 0) top.pop(); }
  function setBlob(bytes32 k, bytes memory d) public { blobs[k] = d; }
  function grow(uint k, uint v) public { grids[k].push(); grids[k][grids[k].length - 1].push(v); }
}`;

test('a seeded random sequence of writes and deletes: paths and state as SolidVM\'s after every call', async () => {
  // mulberry32: seeded, and its low bits are as random as its high ones
  let seed = 20261123;
  const rnd = (n: number) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) % n);
  };
  // empty (a cleared entry), short (inline) or long (its own slots), sometimes not ASCII
  const text = () => (rnd(5) === 0 ? '' : 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(3).slice(0, rnd(80)) + (rnd(4) === 0 ? '\u00e9' : ''));
  const who = () => [ALICE, BOB, '33'.repeat(20)][rnd(3)];
  const calls: Array<() => [string, Record<string, unknown>]> = [
    () => ['setBal', { a: who(), v: rnd(3) === 0 ? 0 : rnd(1000) }],
    () => ['setName', { k: rnd(4), s: text() }],
    () => ['pushList', { k: rnd(3), v: rnd(50) }],
    () => ['popList', { k: rnd(3) }],
    () => ['setRec', { k: rnd(4), a: rnd(256), s: text(), t: rnd(3) === 0 ? 0 : rnd(65536) }],
    () => ['delRec', { k: rnd(4) }],
    () => ['setNested', { a: who(), i: rnd(7) - 3, b: rnd(2) === 1 }],
    () => ['pushTop', { v: rnd(65536) }],
    () => ['popTop', {}],
    () => ['setBlob', { k: word(rnd(3)), d: Buffer.from(text()).toString('hex') }],
    () => ['grow', { k: rnd(2), v: rnd(9) }],
  ];
  const evm = freshState();
  const svm = freshState();
  const made = ok(await createContract(evm, context(), { creator: ALICE, src: RANDOM, contractName: 'Mixed', args: {} }, DECODE));
  const ref = solidCreate(svm, context(), { creator: ALICE, src: RANDOM, contractName: 'Mixed', args: {}, nonce: 0n });
  const wrote = new Set<string>();
  const cleared = new Set<string>();
  for (let i = 0; i < 250; i++) {
    const [method, args] = calls[rnd(calls.length)]();
    const e = ok(await callContract(evm, context(), { caller: ALICE, address: made.address!, method, args }, DECODE));
    const s = solidCall(svm, context(), { caller: ALICE, address: ref.address!, method, args });
    expect(s.ok).toBe(true);
    expect([i, method, args, paths(e.stateChanges[0]?.diff ?? {})]).toEqual([i, method, args, paths(s.stateChanges[0]?.diff ?? {})]);
    const changed = (name: string) => Object.keys(s.stateChanges[0]?.diff ?? {}).some((k) => k.startsWith(`.${name}[`) || k.startsWith(`.${name}.length`));
    const expected = Object.fromEntries(Object.entries(s.stateChanges[0]?.state ?? {}).filter(([name, v]) => !Array.isArray(v) || changed(name)));
    expect([i, e.stateChanges[0]?.state ?? {}]).toEqual([i, expected]);
    for (const v of Object.values(paths(e.stateChanges[0]?.diff ?? {}))) (v === null ? cleared : wrote).add(method);
  }
  // the sequence did exercise every kind of write, and deletes of each kind of entry
  expect([...wrote].sort()).toEqual(expect.arrayContaining(['grow', 'pushList', 'pushTop', 'setBal', 'setBlob', 'setName', 'setNested', 'setRec']));
  expect([...cleared].sort()).toEqual(expect.arrayContaining(['delRec', 'popList', 'popTop', 'setBal', 'setName', 'setNested']));
}, 60_000);

describe('what only the EVM shows', () => {
  test('constant keys that solc hashed at compile time, in a constructor and in calls', async () => {
    const src = `pragma solidity ^0.8.0;
    contract Roles {
      bytes32 constant ADMIN = keccak256("ADMIN");
      mapping(bytes32 => mapping(address => bool)) roles;
      mapping(uint => uint[]) lists;
      mapping(string => uint) named;
      uint[] top;
      constructor() { roles[ADMIN][address(0x1234)] = true; lists[3].push(30); named["one"] = 1; top.push(2 days); }
      function more() public { lists[3][0] = 31; lists[3].push(32); named["one"] = 0; named["two"] = 2; top[0] = 1 ether; }
    }`;
    const s = freshState();
    const made = ok(await createContract(s, context(), { creator: ALICE, src, contractName: 'Roles', args: {} }, DECODE));
    const admin = keccak256Hex('ADMIN');
    expect(paths(made.stateChanges[0].diff)).toEqual({
      [`.roles<${admin}><${'0'.repeat(36)}1234>`]: 'true',
      '.lists<3>[0]': '30',
      '.lists<3>.length': '1',
      '.named<"one">': '1',
      '.top[0]': '172800',
      '.top.length': '1',
    });
    const more = ok(await callContract(s, context(), { caller: ALICE, address: made.address!, method: 'more', args: {} }, DECODE));
    expect(paths(more.stateChanges[0].diff)).toEqual({
      '.lists<3>[0]': '31',
      '.lists<3>[1]': '32',
      '.lists<3>.length': '2',
      '.named<"one">': null,
      '.named<"two">': '2',
      '.top[0]': '1000000000000000000',
    });
    expect(more.stateChanges[0].state).toEqual({ top: ['1000000000000000000'] });
  });

  test('a contract created with `new`: its constructor\'s entries are decoded from its own init code', async () => {
    const src = `pragma solidity ^0.8.0;
    contract Child { mapping(uint => string) notes; string[] log; constructor(uint k) { notes[5] = "five"; notes[k] = "k"; log.push("made"); } }
    contract Factory { Child last; function make(uint k) public { last = new Child(k); } }`;
    const s = freshState();
    const f = ok(await createContract(s, context(), { creator: ALICE, src, contractName: 'Factory', args: {} }, DECODE));
    const out = ok(await callContract(s, context(), { caller: ALICE, address: f.address!, method: 'make', args: { k: 9 } }, DECODE));
    const child = out.stateChanges.find((c) => c.contractName === 'Child')!;
    expect(child.created).toBe(true);
    expect(paths(child.diff)).toEqual({ '.notes<5>': 'five', '.notes<9>': 'k', '.log[0]': 'made', '.log.length': '1' });
    expect(child.state).toEqual({ log: ['made'] });
  });

  test('a contract whose storage starts at a custom slot (layout at)', async () => {
    const src = `pragma solidity ^0.8.29;
    contract Far layout at 0xabcdef00000000000000000000000000000000000000000000 {
      uint n; mapping(uint => uint) m; uint[] list;
      function set() public { n = 1; m[n] = 2; list.push(3); }
    }`;
    const s = freshState();
    const made = ok(await createContract(s, context(), { creator: ALICE, src, contractName: 'Far', args: {} }, DECODE));
    const out = ok(await callContract(s, context(), { caller: ALICE, address: made.address!, method: 'set', args: {} }, DECODE));
    expect(paths(out.stateChanges[0].diff)).toEqual({ '.n': '1', '.m<1>': '2', '.list[0]': '3', '.list.length': '1' });
  });

  test('a slot no variable and no preimage explains stays raw only', async () => {
    const src = `pragma solidity ^0.8.0;
    contract Raw { mapping(uint => uint) m;
      function poke(uint k) public { m[k] = 1; assembly { sstore(0xfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeed, 7) } } }`;
    const s = freshState();
    const made = ok(await createContract(s, context(), { creator: ALICE, src, contractName: 'Raw', args: {} }, DECODE));
    const out = ok(await callContract(s, context(), { caller: ALICE, address: made.address!, method: 'poke', args: { k: 4 } }, DECODE));
    const diff = out.stateChanges[0].diff;
    expect(paths(diff)).toEqual({ '.m<4>': '1' });
    expect(diff['feed'.repeat(16)]).toBe(word(7));
  });
});

describe('without decodeStorage', () => {
  test('the diff names simple variables only and the run records no preimages', async () => {
    const s = freshState();
    const { address } = ok(await createContract(s, context(), { creator: ALICE, src: SHOP, contractName: 'Shop', args: {} }));
    const out = ok(await callContract(s, context(), { caller: BOB, address: address!, method: 'fill', args: { k: 3, s: 'x' } }));
    expect(Object.keys(paths(out.stateChanges[0].diff)).sort()).toEqual(['.neg', '.st']);
    expect(out.stateChanges[0].state).toEqual({ st: '2', neg: '-5' });
    const plain = await acquire(vm.caches.engines, '');
    expect(plain.hashes).toBeNull();
    release(vm.caches.engines, plain);
    const recording = await acquire(vm.caches.engines, '', true);
    expect(recording.hashes).toEqual({ inputs: [], outputs: [] });
    release(vm.caches.engines, recording);
    expect(recording.hashes).toBeNull();
  });
});

describe('literals of the sources, the candidate constant keys', () => {
  test('numbers with units and exponents, strings with escapes, hex strings, enum indexes; comments skipped', () => {
    const lit = literalsOf([`// "not this" 777
      enum E { A, B, C }
      /* 888 */ uint x = 1_000 + 2.5e3 + 0x10 + 3 days + 1 ether; string s = "a\\"b\\x41"; bytes h = hex"0aFF"; string u = unicode"é";`]);
    for (const n of [1000n, 2500n, 16n, 259200n, 10n ** 18n, 0n, 1n, 2n]) expect(lit.numbers.has(n)).toBe(true);
    expect(lit.numbers.has(777n)).toBe(false);
    expect(lit.numbers.has(888n)).toBe(false);
    expect(lit.strings.map((b) => Buffer.from(b).toString('hex'))).toEqual([Buffer.from('a"bA').toString('hex'), '0aff', Buffer.from('é').toString('hex')]);
  });
});
