// Our synchronous WorldState seen through @ethereumjs's StateManagerInterface.
// The EVM awaits every access; the WorldState answers at once, so the adapter
// only converts: addresses to 40 hex, slots to 64-hex keys and values, code by
// hash. It computes no roots (the block service does, once per block) and
// keeps no copy of the state: the WorldState's own checkpoint journal is the
// EVM's, so a reverted frame is undone where it was written.
//
// Per transaction it records, for the result: each slot's value before its
// first access (the EIP-2200 "original" the EVM asks for, and the base of the
// state diff) and the code it deployed at which address.
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { Account, Address, KECCAK256_NULL, KECCAK256_RLP, createAccount } from '@ethereumjs/util';
import type { AccountState, WorldState } from '@platform/common';
import { bytesToHex, hexToBytes, keccak256Hex } from '@platform/crypto';
import { abiEncode } from './abi-codec.js';
import { Lru } from './lru.js';
import { ExecFailure } from './errors.js';

const EMPTY = new Uint8Array(0);
const SLOT_KEY = /^[0-9a-f]{64}$/;

/**
 * What the EVM sees at a SolidVM contract's address: code that reverts with
 * Error(SOLIDVM_CALL_MESSAGE), so an EVM contract calling into SolidVM fails
 * with a reason instead of treating the account as code-less (where a call
 * would "succeed" doing nothing).
 */
export const SOLIDVM_CALL_MESSAGE = 'cannot call a SolidVM contract from the EVM';
export const SOLIDVM_STUB = solidvmStub();

function solidvmStub(): Uint8Array {
  const payload = new Uint8Array([0x08, 0xc3, 0x79, 0xa0, ...abiEncode([{ k: 'string' }], [SOLIDVM_CALL_MESSAGE])]);
  const n = payload.length;
  // CODECOPY(0, 14, n); REVERT(0, n): the payload follows these 14 bytes
  const prefix = [0x61, n >> 8, n & 0xff, 0x60, 14, 0x60, 0, 0x39, 0x61, n >> 8, n & 0xff, 0x60, 0, 0xfd];
  return new Uint8Array([...prefix, ...payload]);
}
const SOLIDVM_STUB_HASH = keccak256Hex(SOLIDVM_STUB);

/** Deployed code by hash: content-addressed, so one cache (an EVM's) serves every state and chain. */
export type CodeCache = Lru<string, Uint8Array>;

export function addressHex(a: Address): string {
  return bytesToHex(a.bytes);
}

export class WorldStateAdapter implements StateManagerInterface {
  private state!: WorldState;

  constructor(private readonly codeCache: CodeCache) {}

  /** per touched contract: slot → value before the transaction (undefined: zero) */
  readonly originals = new Map<string, Map<string, string | undefined>>();
  /** addresses that received code in this transaction, with its hash */
  readonly deployed = new Map<string, string>();
  /** checkpoints the EVM opened and has not closed yet */
  private depth = 0;
  /** maxStateBytes of the running transaction, in slots (32 bytes of key and 32 of value each), and the failure it gives */
  private stateLimit = { slots: Infinity, message: '' };
  /** distinct slots the transaction wrote, per contract: what maxStateBytes counts */
  private slotsWritten = 0;
  private readonly written = new Map<string, Set<string>>();

  readonly originalStorageCache = {
    get: async (address: Address, key: Uint8Array): Promise<Uint8Array> => {
      const a = addressHex(address);
      const k = bytesToHex(key);
      const v = this.noteOriginal(a, k);
      return v === undefined ? EMPTY : hexToBytes(v);
    },
    // originals are reset per transaction by begin()
    clear: (): void => {},
  };

  /** Binds the adapter to a world state for one transaction. */
  begin(state: WorldState): void {
    this.state = state;
    this.depth = 0;
    this.originals.clear();
    this.deployed.clear();
    this.written.clear();
    this.slotsWritten = 0;
  }

  /** The transaction's maxStateBytes (after begin): a write of one slot more fails it with `message`. */
  limitState(maxStateBytes: number, message: string): void {
    this.stateLimit = { slots: Math.floor(maxStateBytes / 64), message };
  }

  private countWrite(a: string, k: string): void {
    let slots = this.written.get(a);
    if (!slots) this.written.set(a, (slots = new Set()));
    if (slots.has(k)) return;
    slots.add(k);
    // thrown through the EVM (not an EVM error): no frame catches it, and execute() fails the transaction
    if (++this.slotsWritten > this.stateLimit.slots) throw new ExecFailure('LIMIT', this.stateLimit.message);
  }

  /** After the EVM threw mid-run: closes the checkpoints it left open, so the caller's journal is balanced. */
  unwind(): void {
    for (; this.depth > 0; this.depth--) this.state.revert();
  }

  end(): void {
    this.state = undefined as unknown as WorldState;
  }

  /** The slot's value before the transaction, recording it on first sight (`current`: its value now, when already read). */
  private noteOriginal(a: string, k: string, current?: { value: string | undefined }): string | undefined {
    let m = this.originals.get(a);
    if (!m) this.originals.set(a, (m = new Map()));
    if (m.has(k)) return m.get(k);
    const v = current ? current.value : this.state.getStorage(a, k);
    m.set(k, v);
    return v;
  }

  // --- accounts ----------------------------------------------------------------

  async getAccount(address: Address): Promise<Account | undefined> {
    const acct = this.state.getAccount(addressHex(address));
    if (!acct) return undefined;
    const codeHash = acct.codeHash === null ? KECCAK256_NULL : hexToBytes(acct.vm === 'SolidVM' ? SOLIDVM_STUB_HASH : acct.codeHash);
    // the constructor itself: createAccount turns nonce and balance into bytes and back, for every read of an account
    return new Account(acct.nonce, acct.balance, KECCAK256_RLP, codeHash);
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address);
    const a = addressHex(address);
    const prev = this.state.getAccount(a);
    // EIP-161: an empty account and no account are the same; do not materialise one
    if (!prev && account.isEmpty()) return;
    const next: AccountState = { ...(prev ?? { codeHash: null }), nonce: account.nonce, balance: account.balance };
    // code changes only through putCode; the EVM writes back the hash it was shown
    this.state.putAccount(a, next);
  }

  async deleteAccount(address: Address): Promise<void> {
    this.state.deleteAccount(addressHex(address));
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const acct = (await this.getAccount(address)) ?? createAccount({});
    if (fields.nonce !== undefined) acct.nonce = fields.nonce;
    if (fields.balance !== undefined) acct.balance = fields.balance;
    await this.putAccount(address, acct);
  }

  // --- code ----------------------------------------------------------------------

  async putCode(address: Address, code: Uint8Array): Promise<void> {
    const a = addressHex(address);
    const prev = this.state.getAccount(a) ?? { nonce: 0n, balance: 0n, codeHash: null };
    if (code.length === 0) {
      this.state.putAccount(a, { nonce: prev.nonce, balance: prev.balance, codeHash: null });
      return;
    }
    const hash = this.state.putCode(code);
    this.codeCache.set(hash, code);
    this.state.putAccount(a, { nonce: prev.nonce, balance: prev.balance, codeHash: hash, vm: 'EVM' });
    this.deployed.set(a, hash);
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const acct = this.state.getAccount(addressHex(address));
    if (!acct?.codeHash) return EMPTY;
    if (acct.vm === 'SolidVM') return SOLIDVM_STUB;
    let code = this.codeCache.get(acct.codeHash);
    if (!code) {
      code = this.state.getCode(acct.codeHash) ?? EMPTY;
      if (code.length) this.codeCache.set(acct.codeHash, code);
    }
    return code;
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  // --- storage -------------------------------------------------------------------

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const a = addressHex(address);
    const k = bytesToHex(key);
    const v = this.state.getStorage(a, k);
    this.noteOriginal(a, k, { value: v });
    return v === undefined ? EMPTY : hexToBytes(v);
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const a = addressHex(address);
    const k = bytesToHex(key);
    this.noteOriginal(a, k);
    this.countWrite(a, k);
    // zero is absence, so a contract's storage holds only what is set
    const zero = value.every((b) => b === 0);
    this.state.putStorage(a, k, zero ? undefined : bytesToHex(value).padStart(64, '0'));
  }

  async clearStorage(address: Address): Promise<void> {
    const a = addressHex(address);
    const keys = [...this.state.storageEntries(a)].map(([k]) => k).filter((k) => SLOT_KEY.test(k));
    for (const k of keys) {
      this.noteOriginal(a, k);
      this.state.putStorage(a, k, undefined);
    }
  }

  // --- journal: the WorldState's own ------------------------------------------------

  async checkpoint(): Promise<void> {
    this.state.checkpoint();
    this.depth++;
  }

  async commit(): Promise<void> {
    this.state.commit();
    this.depth--;
  }

  async revert(): Promise<void> {
    this.state.revert();
    this.depth--;
  }

  // --- roots are the block service's, computed once per block -----------------------

  async getStateRoot(): Promise<Uint8Array> {
    throw new Error('state roots are computed by the block service, not per EVM call');
  }

  async setStateRoot(): Promise<void> {
    throw new Error('state roots are computed by the block service, not per EVM call');
  }

  async hasStateRoot(): Promise<boolean> {
    return false;
  }

  clearCaches(): void {}

  shallowCopy(): StateManagerInterface {
    const copy = new WorldStateAdapter(this.codeCache);
    if (this.state) copy.begin(this.state);
    return copy;
  }
}

