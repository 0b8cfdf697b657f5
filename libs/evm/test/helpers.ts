// Shared fixtures: an execution context like the block service's, a fresh
// in-memory world state (SolidVM's MemoryWorldState), and the test contracts.
import type { ExecutionContext, WorldState } from '@platform/common';
import { DEFAULT_PROTOCOL } from '@platform/common';
import { MemoryWorldState } from '@platform/solidvm';
import { createEvm, type CallRequest, type CreateRequest, type ExecOptions, type ExecOutcome } from '../src/index.js';

export const ALICE = 'a11ce00000000000000000000000000000000001';
export const BOB = 'b0b0000000000000000000000000000000000002';

export function context(over: { gasEnabled?: boolean; gasLimit?: bigint; value?: bigint; origin?: string; chainId?: string } = {}): ExecutionContext {
  return {
    chainId: over.chainId ?? '',
    block: { number: 7, timestamp: 1_700_000_000, coinbase: '00'.repeat(20) },
    tx: { hash: '00'.repeat(32), origin: over.origin ?? ALICE, gasPrice: 1n, gasLimit: over.gasLimit ?? 10_000_000n, value: over.value ?? 0n },
    identity: null,
    protocol: DEFAULT_PROTOCOL,
    gasEnabled: over.gasEnabled ?? false,
  };
}

export function freshState(chainId = ''): MemoryWorldState {
  return new MemoryWorldState(chainId);
}

export const TOKEN = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

contract Token {
    string public name;
    uint256 public totalSupply;
    address public owner;
    bool public paused;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Note(string text, bool flag, bytes32 tag);

    error NotOwner(address who, uint256 code);

    constructor(string memory _name, uint256 supply) {
        name = _name;
        totalSupply = supply;
        owner = msg.sender;
        balanceOf[msg.sender] = supply;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner(msg.sender, 7);
        _;
    }

    function transfer(address to, uint256 amount) public returns (bool) {
        require(!paused, "paused");
        require(balanceOf[msg.sender] >= amount, "insufficient balance");
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }

    function setPaused(bool p) public onlyOwner {
        paused = p;
        emit Note("paused", p, bytes32(uint256(0xabcd)));
    }

    function rename(string memory n) public onlyOwner {
        name = n;
    }

    function mint(uint256 amount) public onlyOwner {
        totalSupply += amount;
        balanceOf[msg.sender] += amount;
    }

    function info() public view returns (string memory, uint256, address, bool) {
        return (name, totalSupply, owner, paused);
    }
}
`;

// One EVM for the tests of a file, as the block service keeps one; `indexingEvm`
// decodes storage (INDEX_EVM) over the same caches. The functions below keep
// the tests' calls short: `options.decodeStorage` picks the indexing one.
export const evm = createEvm();
export const indexingEvm = createEvm({ decodeStorage: true, caches: evm.caches });

export const createContract = (state: WorldState, ctx: ExecutionContext, req: CreateRequest, options: ExecOptions = {}): Promise<ExecOutcome> =>
  (options.decodeStorage ? indexingEvm : evm).createContract(state, ctx, req);
export const callContract = (state: WorldState, ctx: ExecutionContext, req: CallRequest, options: ExecOptions = {}): Promise<ExecOutcome> =>
  (options.decodeStorage ? indexingEvm : evm).callContract(state, ctx, req);
export const compileSolidity = (sources: string | Record<string, string>, contractName?: string) => evm.compileSolidity(sources, contractName);
export const compileUnitOffThread = (sources: string | Record<string, string>) => evm.compileUnitOffThread(sources);
export const readContractState = (state: WorldState, address: string) => evm.readContractState(state, address);
export const compileCacheStats = () => evm.compileCacheStats();
export const clearCaches = () => evm.clearCaches();
export const clearCompileCache = () => evm.clearCaches();
