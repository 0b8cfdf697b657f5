// solc compilation: outputs, the xabi in the platform's layout, compile
// errors carrying solc's messages, and the cache.
import { COMPILE_ERROR, SolidityCompileError, solcWorkerRunning } from '../src/index.js';
import { TOKEN, clearCompileCache, compileCacheStats, compileSolidity, compileUnitOffThread } from './helpers.js';

const SHOP = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
import "./lib.sol";

interface IShop { function buy(uint256 id) external; }

abstract contract Base {
    uint8 public constant VERSION = 3;
    address internal immutable creator;
    constructor() { creator = msg.sender; }
    modifier costs(uint256 price, string memory what) { require(msg.value >= price, what); _; }
}

contract Shop is Base, IShop {
    using Util for uint256;
    enum Color { Red, Green, Blue }
    struct Item { uint256 id; string label; Color color; }

    Item[] public items;
    mapping(uint256 => Item) byId;
    Color public favourite = Color.Green;
    string public motto = "cheap";

    event Sold(uint256 indexed id, Color color, Item item);

    function buy(uint256 id) external override {}
    function add(Item memory it) public returns (uint256) { items.push(it); return items.length.double(); }
    function add(uint256 id, string calldata label) public payable costs(1, "pay") returns (uint256 count, bool ok) { items.push(Item(id, label, Color.Red)); return (items.length, true); }
    function colors() public pure returns (Color[] memory out) { out = new Color[](1); }
}
`;
const LIB = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
library Util { function double(uint256 x) internal pure returns (uint256) { return 2 * x; } }
`;

describe('compileSolidity', () => {
  test('every contract with abi, bin, bin-runtime, code hash and xabi', () => {
    const { contracts } = compileSolidity(TOKEN);
    const t = contracts.Token;
    expect(t.name).toBe('Token');
    expect(t.bin).toMatch(/^[0-9a-f]+$/);
    expect(t.binRuntime).toMatch(/^[0-9a-f]+$/);
    expect(t.bin.length).toBeGreaterThan(t.binRuntime.length);
    expect(t.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(t.abi.find((e) => e.name === 'transfer')?.type).toBe('function');
    const x = t.xabi;
    expect(x.kind).toBe('ContractKind');
    expect(x.funcs.transfer).toEqual({
      args: { to: { type: 'Address', index: 0 }, amount: { type: 'Int', signed: false, bytes: 32, index: 1 } },
      vals: { '#0': { type: 'Bool' } },
      stateMutability: 'nonpayable',
      visibility: 'public',
      modifiers: [],
    });
    expect(x.funcs.mint.modifiers).toEqual(['onlyOwner']);
    // getters of public variables are vars, not funcs
    expect(x.funcs.balanceOf).toBeUndefined();
    expect(x.constr?.args).toEqual({ _name: { type: 'String', dynamic: true, index: 0 }, supply: { type: 'Int', signed: false, bytes: 32, index: 1 } });
    expect(x.vars.balanceOf).toEqual({ type: 'Mapping', key: { type: 'Address' }, value: { type: 'Int', signed: false, bytes: 32 }, public: true, constant: false });
    expect(x.vars.owner).toMatchObject({ type: 'Address', public: true });
    expect(x.events.Transfer).toEqual({
      anonymous: false,
      logs: [
        ['from', { type: 'Address' }],
        ['to', { type: 'Address' }],
        ['value', { type: 'Int', signed: false, bytes: 32 }],
      ],
    });
    expect(x.modifiers.onlyOwner).toEqual({ args: {} });
  });

  test('several files, inheritance, structs, enums, overloads, constants, immutables, using', () => {
    const { contracts } = compileSolidity({ 'shop.sol': SHOP, 'lib.sol': LIB });
    expect(Object.keys(contracts).sort()).toEqual(['Base', 'IShop', 'Shop', 'Util']);
    expect(contracts.IShop.xabi.kind).toBe('InterfaceKind');
    expect(contracts.IShop.bin).toBe('');
    expect(contracts.Base.xabi.kind).toBe('AbstractKind');
    expect(contracts.Util.xabi.kind).toBe('LibraryKind');
    const x = contracts.Shop.xabi;
    expect(x.types.Item).toEqual({
      type: 'Struct',
      fields: {
        id: { type: 'Int', signed: false, bytes: 32, index: 0 },
        label: { type: 'String', dynamic: true, index: 1 },
        color: { type: 'Enum', typedef: 'Color', names: ['Red', 'Green', 'Blue'], index: 2 },
      },
    });
    expect(x.types.Color).toEqual({ type: 'Enum', names: ['Red', 'Green', 'Blue'] });
    // overloads: the first by name, the others by signature
    expect(Object.keys(x.funcs).sort()).toEqual(['add', 'add(uint256,string)', 'buy', 'colors']);
    expect(x.funcs.add.args.it).toEqual({ type: 'Struct', typedef: 'Item', index: 0 });
    expect(x.funcs['add(uint256,string)']).toMatchObject({ stateMutability: 'payable', modifiers: ['costs'], vals: { count: { type: 'Int' }, ok: { type: 'Bool' } } });
    expect(x.funcs.colors.vals.out).toEqual({ type: 'Array', entry: { type: 'Enum', typedef: 'Color', names: ['Red', 'Green', 'Blue'] } });
    expect(x.vars.VERSION).toEqual({ type: 'Int', signed: false, bytes: 1, public: true, constant: true, initialValue: '3' });
    expect(x.vars.creator).toMatchObject({ type: 'Address', public: false, immutable: true });
    expect(x.vars.items).toMatchObject({ type: 'Array', entry: { type: 'Struct', typedef: 'Item' }, public: true });
    expect(x.vars.byId).toMatchObject({ type: 'Mapping', key: { type: 'Int' }, value: { type: 'Struct', typedef: 'Item' }, public: false });
    expect(x.vars.motto).toMatchObject({ type: 'String', initialValue: 'cheap' });
    expect(x.modifiers.costs).toEqual({ args: { price: { type: 'Int', signed: false, bytes: 32, index: 0 }, what: { type: 'String', dynamic: true, index: 1 } } });
    expect(x.events.Sold.logs).toEqual([
      ['id', { type: 'Int', signed: false, bytes: 32 }],
      ['color', { type: 'Enum', typedef: 'Color', names: ['Red', 'Green', 'Blue'] }],
      ['item', { type: 'Struct', typedef: 'Item' }],
    ]);
    expect(x.using).toEqual({ Util: { type: 'uint256' } });
    expect(contracts.Shop.immutables.length).toBeGreaterThanOrEqual(0);
  });

  test('contractName selects one contract; an unknown one is a compile error naming what exists', () => {
    const { contracts } = compileSolidity(TOKEN, 'Token');
    expect(Object.keys(contracts)).toEqual(['Token']);
    expect(() => compileSolidity(TOKEN, 'Nope')).toThrow(/no contract named Nope in the source \(it defines Token\)/);
  });

  test('errors carry solc messages, with file, line and type', () => {
    let err: unknown;
    try {
      compileSolidity('pragma solidity ^0.8.0;\ncontract A {\n  function f() public { uint x = ; }\n}\n');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SolidityCompileError);
    const e = err as SolidityCompileError;
    expect(e.code).toBe(COMPILE_ERROR);
    expect(e.errors[0]).toMatchObject({ severity: 'error', type: 'ParserError', file: 'contract.sol' });
    expect(e.message).toContain('contract.sol:3:');
    expect(e.message).toContain('ParserError');

    // a type error: only the errors are reported, never the warnings
    expect(() => compileSolidity('pragma solidity ^0.8.0; contract B { function f() public pure returns (uint) { return "x"; } }')).toThrow(/TypeError: Return argument type literal_string "x" is not implicitly convertible/);
    // a missing import
    expect(() => compileSolidity({ 'a.sol': 'import "./missing.sol"; contract A {}' })).toThrow(/not found/i);
  });

  test('a second compile of the same input is a cache hit', () => {
    clearCompileCache();
    const src = TOKEN.replace('contract Token', 'contract Cached');
    const t0 = performance.now();
    const first = compileSolidity(src);
    const cold = performance.now() - t0;
    const t1 = performance.now();
    const second = compileSolidity(src);
    const warm = performance.now() - t1;
    expect(second.contracts.Cached).toBe(first.contracts.Cached);
    expect(compileCacheStats()).toMatchObject({ hits: 1, misses: 1, size: 1 });
    expect(warm).toBeLessThan(cold / 10);
    // the same files in another order are the same input
    compileSolidity({ 'lib.sol': LIB, 'shop.sol': SHOP });
    compileSolidity({ 'shop.sol': SHOP, 'lib.sol': LIB });
    expect(compileCacheStats()).toMatchObject({ hits: 2, misses: 2, size: 2 });
  });

  test('off this thread: the same unit, in the same cache, while this thread goes on; errors the same too', async () => {
    clearCompileCache();
    const src = TOKEN.replace('contract Token', 'contract Threaded');
    const here = compileSolidity(src).contracts.Threaded;
    clearCompileCache();
    // this thread keeps running while solc works: timers fire during the compilation
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const [unit, other] = await Promise.all([compileUnitOffThread(src), compileUnitOffThread({ 'lib.sol': LIB, 'shop.sol': SHOP })]);
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(3);
    expect(JSON.parse(JSON.stringify(unit.contracts.find((c) => c.name === 'Threaded')))).toEqual(JSON.parse(JSON.stringify(here)));
    expect(other.contracts.map((c) => c.name).sort()).toEqual(['Base', 'IShop', 'Shop', 'Util']);
    // landed in the cache: the same object without another run
    expect(compileSolidity(src).contracts.Threaded).toBe(unit.contracts.find((c) => c.name === 'Threaded'));
    // a source that does not compile: the same SolidityCompileError, remembered
    const bad = 'pragma solidity ^0.8.0; contract B { function f() public pure returns (uint) { return "x"; } }';
    const err = await compileUnitOffThread(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SolidityCompileError);
    expect((err as SolidityCompileError).message).toMatch(/TypeError: Return argument type literal_string "x"/);
    expect(() => compileSolidity(bad)).toThrow(err as Error);
  });

  test("solc's worker (some 150 MiB) ends when idle, and the next compilation starts another", async () => {
    clearCompileCache();
    await compileUnitOffThread(TOKEN.replace('contract Token', 'contract Idle1'));
    expect(solcWorkerRunning()).toBe(true);
    const deadline = Date.now() + 20_000;
    while (solcWorkerRunning() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(solcWorkerRunning()).toBe(false);
    const unit = await compileUnitOffThread(TOKEN.replace('contract Token', 'contract Idle2'));
    expect(unit.contracts.map((c) => c.name)).toContain('Idle2');
    expect(solcWorkerRunning()).toBe(true);
  }, 40_000);
});
