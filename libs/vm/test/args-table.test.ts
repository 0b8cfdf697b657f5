// One table of arguments, run through SolidVM, the EVM and admission: each
// JSON argument (as a transaction's metadata.args carries it) is accepted or
// refused alike by both VMs, with the same code, and admission refuses
// exactly the ones that do not parse (docs/conventions.md "Arguments").
import { DEFAULT_PROTOCOL, PlatformError, type ExecutionContext } from '@platform/common';
import { generateKeyPair, sign, signingHash, bytesToHex } from '@platform/crypto';
import { createEvm } from '@platform/evm';
import { MemoryWorldState, createSolidVm } from '@platform/solidvm';
// admission's own check of a raw transaction (the transaction service's; no service runs here)
import { parseRaw } from '../../../services/transaction/src/raw.js';
import { checkArgsText } from '../src/index.js';

const SRC = `
pragma solidity ^0.8.0;
contract Args {
  enum Color { Red, Green }
  struct P { uint256 a; string b; }
  uint256 public last;
  function u(uint256 x) public returns (uint256) { last = x; return x; }
  function i8(int8 x) public pure returns (int8) { return x; }
  function b(bool x) public pure returns (bool) { return x; }
  function a(address x) public pure returns (address) { return x; }
  function s(string memory x) public pure returns (string memory) { return x; }
  function by(bytes memory x) public pure returns (uint256) { return x.length; }
  function b4(bytes4 x) public pure returns (bytes4) { return x; }
  function arr(uint256[] memory x) public pure returns (uint256) { return x.length; }
  function pair(uint256[2] memory x) public pure returns (uint256) { return x[0] + x[1]; }
  function nested(uint256[][] memory x) public pure returns (uint256) { return x.length; }
  function st(P memory p) public pure returns (uint256) { return p.a; }
  function col(Color c) public pure returns (uint256) { return uint256(c); }
  function two(uint256 x, string memory y) public pure returns (uint256) { return x + bytes(y).length; }
  function ov(uint256 x) public pure returns (uint256) { return x; }
  function ov(string memory x) public pure returns (uint256) { return bytes(x).length; }
  function ov(uint256 x, uint256 y) public pure returns (uint256) { return x + y; }
}`;

const MAX_UINT = (2n ** 256n - 1n).toString();
const ADDR = 'c0'.repeat(20);

type Expect = 'ok' | 'BAD_ARGUMENTS';
/** method, metadata.args, what both VMs say; `unparsable`: admission refuses it too (422 ARGS_UNPARSABLE) */
const CASES: Array<[string, string, Expect, 'unparsable'?]> = [
  // integers: JSON numbers and strings, big ones, hex, scientific notation
  ['u', '{"x":5}', 'ok'],
  ['u', '{"x":"5"}', 'ok'],
  ['u', '[5]', 'ok'],
  ['u', '(5)', 'ok'],
  ['u', '{"x":"0x10"}', 'ok'],
  ['u', '{"x":"1e18"}', 'ok'],
  ['u', '{"x":1e21}', 'ok'],
  ['u', '{"x":100000000000000000000}', 'ok'],
  ['u', `{"x":${MAX_UINT}}`, 'ok'],
  ['u', `{"x":"${MAX_UINT}"}`, 'ok'],
  ['u', `(${MAX_UINT})`, 'ok'],
  ['u', `{"x":"${2n ** 256n}"}`, 'BAD_ARGUMENTS'],
  ['u', '{"x":-1}', 'BAD_ARGUMENTS'],
  ['u', '{"x":1.5}', 'BAD_ARGUMENTS'],
  ['u', '{"x":"abc"}', 'BAD_ARGUMENTS'],
  ['u', '{"x":true}', 'BAD_ARGUMENTS'],
  ['u', '{"x":[1]}', 'BAD_ARGUMENTS'],
  ['i8', '{"x":-128}', 'ok'],
  ['i8', '{"x":"-128"}', 'ok'],
  ['i8', '{"x":128}', 'BAD_ARGUMENTS'],
  // bools
  ['b', '{"x":true}', 'ok'],
  ['b', '{"x":"false"}', 'ok'],
  ['b', '{"x":"True"}', 'ok'],
  ['b', '(true)', 'ok'],
  ['b', '{"x":1}', 'BAD_ARGUMENTS'],
  ['b', '{"x":"yes"}', 'BAD_ARGUMENTS'],
  // addresses with and without 0x
  ['a', `{"x":"0x${ADDR}"}`, 'ok'],
  ['a', `{"x":"${ADDR}"}`, 'ok'],
  ['a', `{"x":"0X${ADDR.toUpperCase()}"}`, 'ok'],
  ['a', '{"x":"ab"}', 'ok'],
  ['a', `(${ADDR})`, 'ok'],
  ['a', `{"x":"${ADDR}00"}`, 'BAD_ARGUMENTS'],
  ['a', '{"x":"xyz"}', 'BAD_ARGUMENTS'],
  ['a', '{"x":12}', 'BAD_ARGUMENTS'],
  // strings and bytes
  ['s', '{"x":"hi"}', 'ok'],
  ['s', '{"x":12}', 'ok'],
  ['s', '("a,b\\"c")', 'ok'],
  ['s', '{"x":[1]}', 'BAD_ARGUMENTS'],
  ['by', '{"x":"0x0102"}', 'ok'],
  ['by', '{"x":"text"}', 'ok'],
  ['by', '{"x":5}', 'BAD_ARGUMENTS'],
  ['b4', '{"x":"0xdeadbeef"}', 'ok'],
  ['b4', '{"x":"ab"}', 'ok'],
  ['b4', '{"x":"0x0102030405"}', 'BAD_ARGUMENTS'],
  // arrays, also nested, fixed, and as strings holding their JSON
  ['arr', '{"x":[1,"2",3]}', 'ok'],
  ['arr', '{"x":[]}', 'ok'],
  ['arr', '{"x":"[1,2,3]"}', 'ok'],
  ['arr', '([1,2])', 'ok'],
  ['arr', '("[1,2]")', 'ok'],
  ['arr', '{"x":"[1,"}', 'BAD_ARGUMENTS'],
  ['arr', '{"x":5}', 'BAD_ARGUMENTS'],
  ['arr', '{"x":["a"]}', 'BAD_ARGUMENTS'],
  ['pair', '{"x":[1,2]}', 'ok'],
  ['pair', '{"x":[1]}', 'BAD_ARGUMENTS'],
  ['nested', '{"x":[[1],[2,3]]}', 'ok'],
  ['nested', '{"x":"[[1],[2,3]]"}', 'ok'],
  ['nested', '{"x":[1,2]}', 'BAD_ARGUMENTS'],
  // structs (tuples): by member, positional, as a string holding JSON
  ['st', '{"p":{"a":1,"b":"x"}}', 'ok'],
  ['st', '{"p":[1,"x"]}', 'ok'],
  ['st', '{"p":"{\\"a\\":1,\\"b\\":\\"x\\"}"}', 'ok'],
  ['st', '({"a":1,"b":"x"})', 'ok'],
  ['st', '((1,"x"))', 'ok'],
  ['st', '{"p":{"a":1}}', 'BAD_ARGUMENTS'],
  ['st', '{"p":{"a":1,"b":"x","c":2}}', 'BAD_ARGUMENTS'],
  ['st', '{"p":[1]}', 'BAD_ARGUMENTS'],
  ['st', '{"p":5}', 'BAD_ARGUMENTS'],
  // enums by name or index
  ['col', '{"c":"Green"}', 'ok'],
  ['col', '{"c":"Color.Red"}', 'ok'],
  ['col', '{"c":1}', 'ok'],
  ['col', '{"c":"1"}', 'ok'],
  ['col', '{"c":2}', 'BAD_ARGUMENTS'],
  ['col', '{"c":"Blue"}', 'BAD_ARGUMENTS'],
  // named and positional, arity
  ['two', '{"x":1,"y":"a"}', 'ok'],
  ['two', '{"y":"a","x":1}', 'ok'],
  ['two', '[1,"a"]', 'ok'],
  ['two', '(1,"a")', 'ok'],
  ['two', '[1]', 'BAD_ARGUMENTS'],
  ['two', '[1,"a",3]', 'BAD_ARGUMENTS'],
  ['two', '{"x":1}', 'BAD_ARGUMENTS'],
  ['two', '{"x":1,"y":"a","z":2}', 'BAD_ARGUMENTS'],
  ['two', '()', 'BAD_ARGUMENTS'],
  // overloads: by count or names, then the first whose arguments decode
  ['ov', '[5]', 'ok'],
  ['ov', '["abc"]', 'ok'],
  ['ov', '{"x":"abc"}', 'ok'],
  ['ov', '[1,2]', 'ok'],
  ['ov', '{"x":1,"y":2}', 'ok'],
  ['ov', '[[1]]', 'BAD_ARGUMENTS'],
  ['ov', '[1,2,3]', 'BAD_ARGUMENTS'],
  ['ov', '{"z":1}', 'BAD_ARGUMENTS'],
  // what does not parse: refused by both VMs and at admission
  ['u', '(1,', 'BAD_ARGUMENTS', 'unparsable'],
  ['u', '(1, {"x": 1)', 'BAD_ARGUMENTS', 'unparsable'],
  ['u', '(1) x', 'BAD_ARGUMENTS', 'unparsable'],
  ['u', '{"x":', 'BAD_ARGUMENTS', 'unparsable'],
  ['u', '[1,', 'BAD_ARGUMENTS', 'unparsable'],
  ['u', '5', 'BAD_ARGUMENTS', 'unparsable'],
  ['u', '"5"', 'BAD_ARGUMENTS', 'unparsable'],
  ['u', 'not json', 'BAD_ARGUMENTS', 'unparsable'],
  ['u', '   ', 'BAD_ARGUMENTS', 'unparsable'],
];

const CALLER = 'a11ce00000000000000000000000000000000001';

function context(): ExecutionContext {
  return {
    chainId: '',
    block: { number: 7, timestamp: 1_700_000_000, coinbase: '00'.repeat(20) },
    tx: { hash: '00'.repeat(32), origin: CALLER, gasPrice: 1n, gasLimit: 10_000_000n, value: 0n },
    identity: null,
    protocol: DEFAULT_PROTOCOL,
    gasEnabled: false,
  };
}

const solidVm = createSolidVm();
const evm = createEvm();
const svmState = new MemoryWorldState();
const evmState = new MemoryWorldState();
let svmAddress = '';
let evmAddress = '';

beforeAll(async () => {
  const s = solidVm.createContract(svmState, context(), { creator: CALLER, src: SRC, contractName: 'Args' });
  if (!s.ok) throw new Error(`SolidVM: ${s.message}`);
  svmAddress = s.address!;
  const e = await evm.createContract(evmState, context(), { creator: CALLER, src: SRC, contractName: 'Args' });
  if (!e.ok) throw new Error(`EVM: ${e.message}`);
  evmAddress = e.address!;
});

const { privateKey } = generateKeyPair();

/** What admission says of a raw transaction calling `funcName` with `args`: null (admitted) or its error code. */
function admission(funcName: string, args: string): string | null {
  const fields = { nonce: 0n, gasPrice: 1n, gasLimit: 100_000n, to: ADDR, value: 0n, initOrData: new Uint8Array(0), chainId: null, metadata: { VM: 'SolidVM', funcName, args } };
  const sig = sign(signingHash(fields, 'platform'), privateKey);
  const body = { nonce: 0, gasPrice: 1, gasLimit: 100_000, to: ADDR, value: 0, initOrData: '', metadata: fields.metadata, r: bytesToHex(sig.r), s: bytesToHex(sig.s), v: sig.v };
  try {
    parseRaw(body, null, false);
    return null;
  } catch (e) {
    if (e instanceof PlatformError) return e.code;
    throw e;
  }
}

describe.each(CASES)('%s %s', (method, args, expected, unparsable) => {
  test(`both VMs: ${expected}; admission: ${unparsable ? 'refused' : 'admitted'}`, async () => {
    const svm = solidVm.callContract(svmState, context(), { caller: CALLER, address: svmAddress, method, args });
    const ev = await evm.callContract(evmState, context(), { caller: CALLER, address: evmAddress, method, args });
    const said = (o: { ok: boolean; code?: string; message: string }) => (o.ok ? 'ok' : `${o.code}: ${o.message}`);
    expect({ SolidVM: said(svm).split(':')[0], EVM: said(ev).split(':')[0] }).toEqual({ SolidVM: expected, EVM: expected });
    if (expected === 'ok') expect(svm.returnValues.length).toBe(ev.returnValues.length);
    expect(admission(method, args)).toBe(unparsable ? 'ARGS_UNPARSABLE' : null);
    if (unparsable) expect(() => checkArgsText(args)).toThrow();
    else checkArgsText(args);
  });
});
