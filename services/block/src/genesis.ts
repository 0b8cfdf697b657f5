// The main chain's genesis: `<DATA_DIR>/genesis.json` (the `Genesis` type).
// The launcher writes it for a new single-node network (with the faucet's
// account funded: libs/launcher/src/genesis.ts), and every node of a network
// must be started with the same file; this service only reads it. Block 0 is
// derived from it: its state (balances, genesis contracts) and a header with
// no proposer.
import { existsSync, readFileSync } from 'node:fs';
import { limitsError, type BlockHeader, type Genesis, type Hash, type Receipt, type WorldState } from '@platform/common';
import { addressFromPublicKey, bytesToHex, hexToBytes, keccak256Hex } from '@platform/crypto';
import { REGISTRY_ADDRESS, VALIDATOR_SET_ADDRESS, validatorSetGenesisContract } from '@platform/identity';
import { ZERO_ADDRESS, ZERO_HASH, blockHash } from './block.js';
import { nodeSolidVm } from './exec/solidvm.js';
import { EMPTY_ROOT } from './state/root.js';

/** Reads and checks the genesis file. A missing one is an error: which genesis a node runs is never guessed. */
export function loadGenesis(path: string): Genesis {
  if (!existsSync(path)) {
    throw new Error(`${path} is missing: the launcher writes the main chain's genesis for a new network; a node joining a network needs that network's genesis.json`);
  }
  let genesis: Genesis;
  try {
    genesis = JSON.parse(readFileSync(path, 'utf8')) as Genesis;
  } catch (err) {
    throw new Error(`${path} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  validateGenesis(genesis, path);
  return genesis;
}

export function validateGenesis(g: Genesis, where: string): void {
  const fail = (what: string) => {
    throw new Error(`${where}: ${what}`);
  };
  if (g.format !== 1) fail('format must be 1');
  if (typeof g.chainId !== 'string' || !(g.chainId === '' || /^[0-9a-f]{64}$/.test(g.chainId))) fail('chainId must be "" or 64 lowercase hex digits');
  if (!Number.isSafeInteger(g.timestamp) || g.timestamp < 0) fail('timestamp must be seconds since the epoch');
  if (!g.protocol || !Number.isSafeInteger(g.protocol.stepLimit) || !Number.isSafeInteger(g.protocol.gasTableVersion)) fail('protocol needs stepLimit and gasTableVersion');
  // absent: the defaults (a genesis written before the limits existed keeps its hash, and its chain its ID)
  const limits = limitsError(g.protocol.limits);
  if (limits) fail(limits);
  // absent: DEFAULT_MIN_GAS_PRICE, for the same reason
  if (g.protocol.minGasPrice !== undefined && !/^\d{1,78}$/.test(String(g.protocol.minGasPrice))) fail('protocol.minGasPrice must be a non-negative integer (decimal text)');
  if (g.validators !== undefined) {
    if (g.chainId !== '') fail('only the main chain lists validators: the main chain\'s order private chains too');
    if (!Array.isArray(g.validators) || g.validators.length === 0) fail('validators, when given, must be a non-empty array');
    const names = new Set<string>();
    for (const v of g.validators) {
      if (!v || typeof v.node !== 'string' || typeof v.organization !== 'string' || !/^[0-9a-f]{40}$/.test(v.address) || !/^04[0-9a-f]{128}$/.test(String(v.publicKey))) {
        fail(`validator ${JSON.stringify(v)} needs a node name, an organization, a 40-hex address and its 130-hex uncompressed public key`);
      }
      if (addressFromPublicKey(hexToBytes(v.publicKey)) !== v.address) fail(`validator ${v.node}: its address ${v.address} is not its public key's`);
      if (names.has(v.node)) fail(`validator ${v.node} is listed twice`);
      names.add(v.node);
    }
    // the set governance changes is the chain's state: it must start as the genesis lists it
    const set = g.contracts?.find((c) => c.address === VALIDATOR_SET_ADDRESS);
    const expected = validatorSetGenesisContract(g.validators);
    if (!set || set.src !== expected.src || JSON.stringify(set.args) !== JSON.stringify(expected.args)) {
      fail(`a genesis with validators creates the validator set (contract at ${VALIDATOR_SET_ADDRESS}) from them, as validatorSetGenesisContract does`);
    }
  }
  if (!Array.isArray(g.accounts)) fail('accounts must be an array');
  for (const a of g.accounts) {
    if (!/^[0-9a-f]{40}$/.test(a.address) || !/^\d+$/.test(String(a.balance))) fail(`account ${JSON.stringify(a)} needs a 40-hex address and a decimal balance`);
  }
  if (!Array.isArray(g.contracts)) fail('contracts must be an array');
  if (!Array.isArray(g.trustedRoots) || g.trustedRoots.some((r) => typeof r !== 'string')) fail('trustedRoots must be an array of PEM certificates');
  // the registry is created with the network's trusted roots, named once in the file
  const registry = g.contracts.find((c) => c.address === REGISTRY_ADDRESS);
  if (registry && JSON.stringify((registry.args as { roots?: unknown }).roots) !== JSON.stringify(g.trustedRoots)) {
    fail(`the certificate registry (contract at ${REGISTRY_ADDRESS}) must be created with args {"roots": <trustedRoots>}`);
  }
}

/** The genesis's identity: Keccak-256 of its JSON (a store built from another genesis is refused). */
export function genesisHash(g: Genesis): Hash {
  return keccak256Hex(JSON.stringify(g));
}

/**
 * Writes the genesis state into `state`: balances, then the genesis contracts.
 * SolidVM derives a creation's address from its creator; a genesis contract
 * has a fixed address, so it is created by the zero address and its account
 * and storage are then moved to the address the genesis names.
 */
export function applyGenesisState(state: WorldState, g: Genesis): Receipt[] {
  for (const a of g.accounts) {
    const prev = state.getAccount(a.address);
    state.putAccount(a.address, { nonce: prev?.nonce ?? 0n, balance: BigInt(a.balance), codeHash: null });
  }
  const receipts: Receipt[] = [];
  // a private chain's governance constructor runs as its creator (msg.sender, tx.origin), as the platform does
  const creator = g.creator ?? ZERO_ADDRESS;
  // a SolidVM for this genesis alone: its contracts are compiled once, and nothing is kept after
  const vm = g.contracts.length ? nodeSolidVm({ compileCacheSize: g.contracts.length }) : undefined;
  g.contracts.forEach((c, i) => {
    if (c.vm !== 'SolidVM') throw new Error(`genesis contract ${c.name}: only SolidVM contracts can be created at genesis`);
    const ctx = {
      chainId: g.chainId,
      block: { number: 0, timestamp: g.timestamp, coinbase: ZERO_ADDRESS },
      tx: { hash: ZERO_HASH, origin: creator, gasPrice: 0n, gasLimit: 0n, value: 0n },
      identity: null,
      protocol: g.protocol,
      // genesis contracts are the network's own: nothing to pay
      gasEnabled: false,
      parentChain: parentOf(g),
    };
    const out = vm!.createContract(state, ctx, { creator, src: c.src, contractName: c.name, args: c.args, nonce: BigInt(i) });
    if (!out.ok || !out.address) throw new Error(`genesis contract ${c.name} could not be created: ${out.message}`);
    relocate(state, out.address, c.address);
    const fix = <T extends { address: string }>(x: T): T => (x.address === out.address ? { ...x, address: c.address } : x);
    receipts.push({
      transactionHash: keccak256Hex(`genesis:${g.chainId}:${c.address}`),
      from: creator,
      status: 'Success',
      message: out.message,
      kind: 'SolidVM',
      response: out.response,
      returnValues: out.returnValues,
      contractsCreated: out.contractsCreated.map(fix),
      contractsDeleted: [],
      gasUsed: '0',
      etherUsed: '0',
      stateChanges: out.stateChanges.map(fix),
      events: out.events.map(fix),
      time: 0,
      trace: '',
    });
  });
  return receipts;
}

function relocate(state: WorldState, from: string, to: string): void {
  const account = state.getAccount(from)!;
  const entries = [...state.storageEntries(from)];
  for (const [k, v] of entries) {
    state.putStorage(to, k, v);
    state.putStorage(from, k, undefined);
  }
  state.putAccount(to, account);
  state.deleteAccount(from);
}

/** A chain's parent as SolidVM's `account(a, "parent")` names it: a private chain's genesis says null for a child of the main chain (''); the main chain has none. */
export function parentOf(g: Genesis): string | null {
  return g.chainId === '' ? null : (g.parentChain ?? '');
}

export function genesisHeader(g: Genesis, stateRoot: Hash): BlockHeader {
  return {
    chainId: g.chainId,
    number: 0,
    parentHash: ZERO_HASH,
    timestamp: g.timestamp,
    transactionsRoot: bytesToHex(EMPTY_ROOT),
    stateRoot,
    proposer: ZERO_ADDRESS,
  };
}

export { blockHash };
