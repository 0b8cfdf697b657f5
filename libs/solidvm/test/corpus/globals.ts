// Globals, hashes and signatures, contracts creating contracts (addresses
// from creator and nonce, salted creation), calls through contract-typed
// values, selfdestruct. The differential test runs the EVM with the same
// block, creator and caller, so even the addresses must agree.
import { codeHashOf } from '../../src/index.js';
import { contractAddress, saltedContractAddress } from '../../src/hash.js';
import { ALICE } from '../helpers.js';
import { call, fails, sol, svm, type CorpusCase } from './types.js';

const c = (name: string, src: string, calls: ReturnType<typeof call>[], extra = {}) => sol(name, '', calls, { src, ...extra });

/** The address every case's contract gets: created by ALICE with nonce 0 (the same in the EVM). */
const SELF = contractAddress(ALICE, 0n);
const ZERO = '0'.repeat(40);

// a signature of keccak256("hello") by the private key 7 (made with @platform/crypto's sign)
const SIG = {
  hash: '0x1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8',
  r: '0x47d4f72872efcf8bcbbf1d5e4d011eecce1dbc20e22509423694349440de5d3d',
  s: '0x640f12e91665a1fb4a02b2378b6feda2c0f81568b7757c9c6a888ca10563e9c0',
  signer: 'd41c057fd1c78805aac12b0a94a405c0461a6fbb',
};

const SALTED_SRC = `contract D { }
contract C { function f(uint s) public returns (address) { return address(new D{salt: bytes32(s)}()); } }`;
const salt = (n: number) => {
  const b = new Uint8Array(32);
  b[31] = n;
  return b;
};

export const cases: CorpusCase[] = [
  sol(
    'block and tx globals',
    `function f() public view returns (uint, uint, address, uint, uint) { return (block.number, block.timestamp, block.coinbase, tx.gasprice, block.gaslimit); }`,
    [call('f', [], ['7', '1700000000', ZERO, '1', '10000000'])],
  ),
  sol('prevrandao reads zero', `function f() public view returns (uint) { return block.prevrandao; }`, [call('f', [], '0')]),
  sol('msg.value without value is zero', `function f() public payable returns (uint) { return msg.value; }`, [call('f', [], '0')]),
  sol('gasleft is positive', `function f() public view returns (bool) { return gasleft() > 0; }`, [call('f', [], 'true')]),
  sol('msg.sender and tx.origin of a direct call', `function f() public view returns (address, address) { return (msg.sender, tx.origin); }`, [
    call('f', [], [ALICE, ALICE]),
    { method: 'f', args: [], caller: 'b0b0000000000000000000000000000000000002', expect: ['b0b0000000000000000000000000000000000002', 'b0b0000000000000000000000000000000000002'] },
  ]),
  sol('address(this) is the address from creator and nonce', `function f() public view returns (address, bool) { return (address(this), address(this) == address(C(this))); }`, [call('f', [], [SELF, 'true'])]),
  sol('balance of an account without funds', `function f() public view returns (uint, uint) { return (msg.sender.balance, address(this).balance); }`, [call('f', [], ['0', '0'])]),
  c(
    'new derives addresses from the creator and its nonce',
    `contract D { }\ncontract C { function f() public returns (address, address) { return (address(new D()), address(new D())); } }`,
    [call('f', [], [contractAddress(SELF, 1n), contractAddress(SELF, 2n)]), call('f', [], [contractAddress(SELF, 3n), contractAddress(SELF, 4n)])],
  ),
  c(
    'contracts created in the constructor',
    `contract D { uint public v; constructor(uint x) { v = x; } }\ncontract C { D public a = new D(1); D public b; constructor() { b = new D(2); } function vs() public view returns (uint, uint) { return (a.v(), b.v()); } }`,
    [call('a', [], contractAddress(SELF, 1n)), call('b', [], contractAddress(SELF, 2n)), call('vs', [], ['1', '2'])],
  ),
  c(
    'salted new: a salt used twice collides',
    `contract D { uint public v; constructor(uint x) { v = x; } }\ncontract C { function f(uint s) public returns (uint) { D d = new D{salt: bytes32(s)}(5); return d.v(); } }`,
    [call('f', [1], '5'), fails('f', [1]), call('f', [2], '5')],
  ),
  c(
    'salted and plain creation give different addresses',
    `contract D { }\ncontract C { function f() public returns (bool, bool) { address a = address(new D{salt: bytes32(uint(1))}()); address b = address(new D{salt: bytes32(uint(2))}()); return (a != b, a != address(new D())); } }`,
    [call('f', [], ['true', 'true'])],
  ),
  {
    name: 'salted address from creator, salt, contract name and code hash',
    src: SALTED_SRC,
    calls: [call('f', [1], saltedContractAddress(SELF, salt(1), 'D', codeHashOf(SALTED_SRC))), call('f', [2], saltedContractAddress(SELF, salt(2), 'D', codeHashOf(SALTED_SRC)))],
    evm: "SolidVM's salted address hashes the contract name and code hash, not the EVM's init code",
  },
  sol(
    'ecrecover recovers the signer',
    `function f(bytes32 h, uint8 v, bytes32 r, bytes32 s) public pure returns (address) { return ecrecover(h, v, r, s); }`,
    [
      call('f', [SIG.hash, 27, SIG.r, SIG.s], SIG.signer),
      call('f', [SIG.hash, 28, SIG.r, SIG.s], '1c3a2ab1f27ea7c3c902ee1ad086bd5167b070ae'),
      call('f', [SIG.hash, 29, SIG.r, SIG.s], ZERO),
      call('f', [SIG.hash, 27, '0x' + '00'.repeat(32), SIG.s], ZERO),
    ],
  ),
  sol(
    'ecrecover of a signed message in a contract',
    `function check(bytes32 h, uint8 v, bytes32 r, bytes32 s, address who) public pure returns (bool) { return ecrecover(h, v, r, s) == who; }`,
    [call('check', [SIG.hash, 27, SIG.r, SIG.s, SIG.signer], 'true'), call('check', [SIG.hash, 27, SIG.r, SIG.s, ALICE], 'false')],
  ),
  sol('keccak256 of nothing', `function f() public pure returns (bytes32) { return keccak256(""); }`, [call('f', [], 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470')]),
  sol('sha256 of packed bytes', `function f() public pure returns (bytes32) { return sha256(abi.encodePacked(uint8(1))); }`, [call('f', [], '4bf5122f344554c53bde2ebb8cd2b7e3d1600ad631c385a5d7cce23c7785459a')]),
  sol('keccak256 of packed signed and short values', `function f() public pure returns (bytes32) { return keccak256(abi.encodePacked(int8(-1), uint16(2), "ab")); }`, [call('f', [], '3f313102ae595427d1c68de42cce11d352776b1370839aead2c1fbf844b36b16')]),
  sol('type names and bounds', `function f() public pure returns (string memory, uint16, int16) { return (type(C).name, type(uint16).max, type(int16).min); }`, [call('f', [], ['C', '65535', '-32768'])]),
  c(
    'a contract-typed value from an address',
    `contract D { uint public v = 11; }\ncontract C { address d = address(new D()); function f() public view returns (uint) { return D(d).v(); } }`,
    [call('f', [], '11')],
  ),
  c(
    'calling a contract that does not exist fails',
    `contract D { function v() public pure returns (uint) { return 1; } }\ncontract C { function f() public view returns (uint) { return D(address(0x1234)).v(); } }`,
    [fails('f', [])],
  ),
  c(
    'try does not catch a call to no contract',
    `contract D { function v() public pure returns (uint) { return 1; } }\ncontract C { function f() public view returns (uint) { try D(address(0x1234)).v() returns (uint r) { return r; } catch { return 2; } } }`,
    [fails('f', [])],
  ),
  c(
    'msg.sender along a chain of calls',
    `contract E { function who() public view returns (address, address) { return (msg.sender, tx.origin); } }
contract D { E public e = new E(); function who() public view returns (address, address) { return e.who(); } }
contract C { D public d = new D(); function f() public view returns (bool, address) { (address s, address o) = d.who(); return (s == address(d), o); } }`,
    [call('f', [], ['true', ALICE])],
  ),
  c(
    'a failed transaction keeps a contract another one destroyed',
    `contract D { uint public x = 1; function kill() public { selfdestruct(payable(msg.sender)); } }
contract C { D public d = new D(); function f() public { d.kill(); require(false, "undo"); } function alive() public view returns (uint) { return d.x(); } }`,
    [fails('f', [], 'undo'), call('alive', [], '1')],
  ),
  {
    name: 'selfdestruct removes the account',
    src: `contract D { uint public x = 1; function kill() public { selfdestruct(payable(msg.sender)); } }
contract C { D public d = new D(); function killD() public { d.kill(); } function alive() public view returns (uint) { return d.x(); } }`,
    calls: [call('alive', [], '1'), { method: 'killD', args: [], expect: [] }, fails('alive', [], /no SolidVM contract/, 'NO_CONTRACT')],
    evm: 'selfdestruct removes the account (platform semantics); the EVM since Cancun keeps it',
  },
  svm('selfdestruct reports the deleted contract and ends the call', `uint public x = 1; function kill() public { selfdestruct(payable(msg.sender)); x = 2; }`, [
    { method: 'kill', args: [], expect: [], deleted: true },
    fails('x', [], /no SolidVM contract/, 'NO_CONTRACT'),
  ], { evm: 'selfdestruct removes the account (platform semantics); the EVM since Cancun keeps it' }),
  svm('block.chainid is the platform chain id', `function f() public view returns (uint) { return block.chainid; }`, [call('f', [], '0')], { evm: 'block.chainid is the platform chain (0 for the main chain), not Ethereum mainnet' }),
];
