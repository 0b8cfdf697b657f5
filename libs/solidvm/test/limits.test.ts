// The chain's execution limits (protocol.limits) in SolidVM: each fails the
// transaction with LIMIT and a message naming the limit, the state as it was,
// whatever the contract's try/catch; values just under a limit pass whole.
import { DEFAULT_LIMITS, limitMessage, type ExecutionLimits } from '@platform/common';
import { Chain, makeCtx } from './helpers.js';

function chainWith(limits: Partial<ExecutionLimits> = {}, stepLimit = 10_000_000): Chain {
  const c = new Chain();
  c.ctx = makeCtx({ protocol: { stepLimit, gasTableVersion: 1, limits: { ...DEFAULT_LIMITS, ...limits } } });
  return c;
}

const PUSHER = `
contract Pusher {
  uint[] public items;
  constructor(uint n) { for (uint i = 0; i < n; i++) items.push(i); }
  function more(uint n) public { for (uint i = 0; i < n; i++) items.push(i); }
}`;

describe('SolidVM execution limits', () => {
  it('a constructor pushing 2^14 elements succeeds and keeps them all', () => {
    const c = chainWith();
    const out = c.create(PUSHER, 'Pusher', { n: 16384 });
    expect(out.message).toBe('Success!');
    expect((c.read(out.address!).items as unknown[]).length).toBe(16384);
  });

  it('a constructor pushing a million elements fails on maxStateBytes, leaving nothing', () => {
    const c = chainWith();
    const out = c.create(PUSHER, 'Pusher', { n: 1_000_000 });
    expect(out).toMatchObject({ ok: false, code: 'LIMIT', message: limitMessage('maxStateBytes', DEFAULT_LIMITS) });
    expect(c.state.getAccount(out.address!)).toBeUndefined();
    expect(out.stateChanges).toEqual([]);
  });

  it('counts a path written again once, with its last value: a counter incremented often stays small', () => {
    const c = chainWith({ maxStateBytes: 100 });
    const src = 'contract K { uint n; constructor() { for (uint i = 0; i < 5000; i++) n++; } }';
    expect(c.create(src, 'K').message).toBe('Success!');
  });

  it('counts UTF-8 bytes, not characters: state and events of three-byte characters', () => {
    const c = chainWith({ maxStateBytes: 1000, maxEventBytes: 1000 });
    const src = 'contract T { string s; event E(string v); function set(string v) public { s = v; } function say(string v) public { emit E(v); } }';
    const t = c.create(src, 'T').address!;
    const limits = c.ctx.protocol.limits as ExecutionLimits;
    // 300 characters, 900 bytes: fits; 400 characters, 1200 bytes: does not, though 400 characters would
    expect(c.call(t, 'set', { v: '€'.repeat(300) }).message).toBe('Success!');
    expect(c.call(t, 'set', { v: '€'.repeat(400) })).toMatchObject({ code: 'LIMIT', message: limitMessage('maxStateBytes', limits) });
    expect(c.call(t, 'say', { v: '€'.repeat(300) }).message).toBe('Success!');
    expect(c.call(t, 'say', { v: '€'.repeat(400) })).toMatchObject({ code: 'LIMIT', message: limitMessage('maxEventBytes', limits) });
  });

  it('a try/catch cannot swallow a limit', () => {
    const c = chainWith({ maxStateBytes: 2000 });
    const src = `
contract Inner { uint[] xs; function fill() public { for (uint i = 0; i < 1000; i++) xs.push(i); } }
contract Outer {
  bool public caught;
  function go() public { Inner i = new Inner(); try i.fill() { } catch { caught = true; } }
}`;
    const made = c.create(src, 'Outer');
    const out = c.call(made.address!, 'go');
    expect(out).toMatchObject({ ok: false, code: 'LIMIT', message: limitMessage('maxStateBytes', { ...DEFAULT_LIMITS, maxStateBytes: 2000 }) });
    expect(c.read(made.address!).caught).toBe(false);
  });

  it('events: their number and their bytes', () => {
    const src = `
contract E {
  event Hit(uint i, string s);
  function many(uint n) public { for (uint i = 0; i < n; i++) emit Hit(i, "x"); }
  function big(uint n) public { string memory s = "0123456789abcdef"; for (uint i = 0; i < n; i++) s = string.concat(s, s); emit Hit(0, s); }
}`;
    const c = chainWith({ maxEvents: 10, maxEventBytes: 1000 });
    const e = c.create(src, 'E').address!;
    expect(c.call(e, 'many', { n: 10 }).message).toBe('Success!');
    expect(c.call(e, 'many', { n: 11 })).toMatchObject({ code: 'LIMIT', message: limitMessage('maxEvents', c.ctx.protocol.limits as ExecutionLimits) });
    expect(c.call(e, 'big', { n: 5 }).events[0].args[1][1]).toHaveLength(512);
    expect(c.call(e, 'big', { n: 6 })).toMatchObject({ code: 'LIMIT', message: limitMessage('maxEventBytes', c.ctx.protocol.limits as ExecutionLimits) });
  });

  it('return data', () => {
    const src = `
contract R {
  function get(uint n) public returns (string memory) { string memory s = "0123456789abcdef"; for (uint i = 0; i < n; i++) s = string.concat(s, s); return s; }
}`;
    const c = chainWith({ maxReturnBytes: 1030 });
    const r = c.create(src, 'R').address!;
    // the response is JSON text: ["…"], 4 bytes more than the string
    expect(JSON.parse(c.call(r, 'get', { n: 6 }).response)[0]).toHaveLength(1024);
    expect(c.call(r, 'get', { n: 7 })).toMatchObject({ code: 'LIMIT', message: limitMessage('maxReturnBytes', c.ctx.protocol.limits as ExecutionLimits) });
  });

  it('memory: a string doubling loop, bytes, abi.encode and new arrays stop at maxMemoryBytes, not at the engine', () => {
    const src = `
contract M {
  function strings() public { string memory s = "ab"; while (true) s = string.concat(s, s); }
  function plus() public { string memory s = "ab"; while (true) s = s + s; }
  function plusAssign() public { string memory s = "ab"; while (true) s += s; }
  function bytesLoop() public { bytes memory b = "ab"; while (true) b = bytes.concat(b, b); }
  function encoded() public { bytes memory b = "ab"; while (true) b = abi.encodePacked(b, b); }
  function bigArray() public { uint[] memory a = new uint[](2**200); a[0] = 1; }
  function bigBytes() public { bytes memory b = new bytes(2**40); b[0] = 0x01; }
  function fits() public returns (uint) { uint[] memory a = new uint[](65536); return a.length; }
}`;
    const c = chainWith();
    const m = c.create(src, 'M').address!;
    const message = limitMessage('maxMemoryBytes', DEFAULT_LIMITS);
    for (const fn of ['strings', 'plus', 'plusAssign', 'bytesLoop', 'encoded', 'bigArray', 'bigBytes']) {
      expect([fn, c.call(m, fn)]).toMatchObject([fn, { ok: false, code: 'LIMIT', message }]);
    }
    expect(c.call(m, 'fits').returnValues).toEqual(['65536']);
  });

  it('memory made over a whole transaction stops at maxAllocatedBytes: a loop of allocations each under maxMemoryBytes fails fast, ordinary temporaries pass', () => {
    const src = `
contract A {
  uint public kept;
  // 4,096 arrays of 65,536 elements: a few thousand steps, once a minute and gigabytes of the node's memory
  function arrays() public { uint[][] memory keep = new uint[][](4096); for (uint i = 0; i < 4096; i++) keep[i] = new uint[](65536); kept = keep.length; }
  function strings() public { string memory big = new string(1000000); string[] memory keep = new string[](1000); for (uint i = 0; i < 1000; i++) keep[i] = string.concat(big, "x"); kept = keep.length; }
  function temporaries() public { for (uint i = 0; i < 1000; i++) { uint[] memory t = new uint[](100); t[0] = i; kept = t[0]; } }
}`;
    const c = chainWith();
    const a = c.create(src, 'A').address!;
    const message = limitMessage('maxAllocatedBytes', DEFAULT_LIMITS);
    const started = Date.now();
    expect(c.call(a, 'arrays')).toMatchObject({ ok: false, code: 'LIMIT', message });
    expect(c.call(a, 'strings')).toMatchObject({ ok: false, code: 'LIMIT', message });
    expect(Date.now() - started).toBeLessThan(5_000);
    // a storage array copied into memory over and over counts as memory made too
    const copier = c.create(`contract C { uint[] items; constructor() { for (uint i = 0; i < 20000; i++) items.push(i); } function copies() public returns (uint) { uint n = 0; for (uint i = 0; i < 200; i++) { uint[] memory m = items; n += m.length; } return n; } function once() public returns (uint) { uint[] memory m = items; return m.length; } }`, 'C').address!;
    expect(c.call(copier, 'copies')).toMatchObject({ ok: false, code: 'LIMIT', message });
    expect(c.call(copier, 'once').returnValues).toEqual(['20000']);
    // ABI data whose offsets point 20,000 elements at one array of 20,000: 1.3 MB describing 400 million values
    const word = (n: number) => n.toString(16).padStart(64, '0');
    const N = 20_000;
    const aliased = word(32) + word(N) + word(N * 32).repeat(N) + word(N) + word(0).repeat(N);
    const decoder = c.create('contract D { function dec(bytes memory data) public returns (uint) { uint[][] memory x = abi.decode(data, (uint[][])); return x.length; } }', 'D').address!;
    expect(c.call(decoder, 'dec', { data: aliased })).toMatchObject({ ok: false, code: 'LIMIT', message });
    expect(c.call(decoder, 'dec', { data: word(32) + word(1) + word(32) + word(2) + word(7) + word(8) }).returnValues).toEqual(['1']);
    // 1,000 arrays of 100 elements: 3.2 MB made in all, far under the budget
    expect(c.call(a, 'temporaries').message).toBe('Success!');
    expect(c.read(a).kept).toBe('999');
  });

  it('a genesis without limits gets the defaults', () => {
    const c = new Chain();
    c.ctx = makeCtx({ protocol: { stepLimit: 10_000_000, gasTableVersion: 1 } });
    expect(c.create(PUSHER, 'Pusher', { n: 1_000_000 }).message).toBe(limitMessage('maxStateBytes', DEFAULT_LIMITS));
  });
});
