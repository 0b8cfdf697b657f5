// A private chain's genesis as the block service takes it: its ID must be
// the hash of its text, and its governance contract must start (compile,
// have an explicit constructor, and that constructor succeed). The chains
// service asks for the same check before it publishes a genesis, so a chain
// that could not start is refused at creation with the reason.
import { GOVERNANCE_ADDRESS, PlatformError, chainGenesisText, type Genesis } from '@platform/common';
import { keccak256Hex } from '@platform/crypto';
import { MemoryWorldState, SolidVMCompileError, compile, xabiOf } from '@platform/solidvm';
import { applyGenesisState, validateGenesis } from '../genesis.js';

/** The ID a private chain's genesis gives it. */
export function privateChainId(genesis: Genesis): string {
  return keccak256Hex(chainGenesisText(genesis));
}

type GenesisRefusal = 'GENESIS_INVALID' | 'COMPILE_FAILED' | 'GOVERNANCE_NO_CONSTRUCTOR' | 'GOVERNANCE_CONSTRUCTOR_FAILED';

function refuse(code: GenesisRefusal, message: string): PlatformError {
  return new PlatformError(code, message);
}

/** Why this genesis is not a private chain's a block service can start, or null. */
export function privateGenesisError(genesis: Genesis): string | null {
  try {
    validateGenesis(genesis, 'the genesis');
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  if (genesis.chainId === '') return 'a private chain cannot have the main chain\'s ID';
  if (genesis.chainId !== privateChainId(genesis)) return `its chainId ${genesis.chainId} is not the hash of its genesis`;
  const [governance, ...others] = genesis.contracts;
  if (!governance || others.length > 0 || governance.address !== GOVERNANCE_ADDRESS) return `it must create exactly one contract, the governance contract at ${GOVERNANCE_ADDRESS}`;
  return null;
}

/**
 * Runs the genesis on an empty state, as block 0 does. Answers the
 * governance contract's code hash, or throws the code of the reason (GENESIS_INVALID, COMPILE_FAILED, GOVERNANCE_*).
 */
export function checkPrivateGenesis(genesis: Genesis): { codeHash: string } {
  const shape = privateGenesisError(genesis);
  if (shape) throw refuse('GENESIS_INVALID', `the chain's genesis is not valid: ${shape}`);
  const governance = genesis.contracts[0];
  if (governance.vm !== 'SolidVM') throw refuse('GENESIS_INVALID', 'the governance contract must be a SolidVM contract (metadata.VM "SolidVM")');
  let constructorFound: boolean;
  try {
    constructorFound = xabiOf(compile(governance.src), governance.name).constr !== null;
  } catch (err) {
    if (err instanceof SolidVMCompileError) throw refuse('COMPILE_FAILED', `the governance contract ${governance.name} does not compile: ${err.message}`);
    throw err;
  }
  // the spec: a governance contract without an explicit constructor is refused
  if (!constructorFound) throw refuse('GOVERNANCE_NO_CONSTRUCTOR', `the governance contract ${governance.name} has no explicit constructor: declare one (constructor() {} will do)`);
  let receipts;
  try {
    receipts = applyGenesisState(new MemoryWorldState(genesis.chainId), genesis);
  } catch (err) {
    throw refuse('GOVERNANCE_CONSTRUCTOR_FAILED', `the governance contract's constructor failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  const created = receipts[0]?.contractsCreated.find((c) => c.address === GOVERNANCE_ADDRESS);
  return { codeHash: created?.codeHash ?? '' };
}
