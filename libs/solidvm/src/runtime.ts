// Execution state of one transaction (Exec) and of one function activation
// (Frame), and the storage model: every scalar lives under its own path
// (`.balances<"alice">`, `.items[3].name`, `.items.length`), values as text,
// default values as absent keys.
import { limitMessage, limitsOf, type EventLog, type ExecutionContext, type ExecutionLimits, type WorldState } from '@platform/common';
import { VmFailure } from './errors.js';
import type { GasTable } from './gas.js';
import type { SType } from './types.js';
import { codecOf } from './values.js';

/** Hooks for what the VM cannot know by itself (identity registry, parent chain). */
export interface SolidVMHooks {
  /** `getUserCert(addr)`: the certificate fields registered for an address */
  getUserCert?(address: string): Record<string, string> | undefined;
  /** `parseCert(pem)` */
  parseCert?(pem: string): Record<string, string> | undefined;
  /** `verifyCert(cert, pubkey)` */
  verifyCert?(cert: string, pubkey: string): boolean;
  /** `verifyCertSignedBy(cert, signerCert)` */
  verifyCertSignedBy?(cert: string, signerCert: string): boolean;
  /** `verifySignature(hash, signature, pubkey)` */
  verifySignature?(hash: string, signature: string, pubkey: string): boolean;
  /** `ecrecover(hash, v, r, s)`: 40-hex address, or undefined for an invalid signature */
  ecrecover?(hash: Uint8Array, v: number, r: Uint8Array, s: Uint8Array): string | undefined;
  /** `account(a, "parent")`: the parent chain of this chain ('' for the main chain) */
  parentChain?(): string | null;
}

export interface CreatedRecord {
  address: string;
  name: string;
  codeHash: string;
  /** created by `new` inside a contract (not by the transaction itself) */
  byContract: boolean;
}

export const MAX_CALL_DEPTH = 256;

export class Exec {
  steps = 0;
  /** steps allowed before overLimit() is consulted */
  stepCap: number;
  /** gas metered besides steps (storage, events, calls, hashing) */
  gas = 0;
  readonly events: EventLog[] = [];
  /** first value seen at each written path, per contract, to report only real changes */
  readonly origs = new Map<string, Map<string, string | undefined>>();
  readonly created: CreatedRecord[] = [];
  readonly deleted: string[] = [];
  depth = 0;
  /** name of the contract the transaction targets or creates (CreatedContract.appName) */
  appName: string | null = null;
  /** the chain's execution limits (its genesis's protocol.limits) */
  readonly limits: ExecutionLimits;
  /**
   * State written so far, each distinct path once with the value it holds
   * now, in UTF-16 units: a lower bound of its UTF-8 bytes (never more than
   * three times it), counted without encoding anything on every write;
   * the exact bytes are counted once, at the end, and only when the bound
   * leaves the limit in doubt (`checkFinalLimits`).
   */
  private stateUnits = 0;
  /** the value length counted for each written path, per contract */
  private readonly written = new Map<string, Map<string, number>>();
  /** the last contract written and its lengths: most writes of a transaction go to one contract */
  private lastWritten: { addr: string; lens: Map<string, number> } | null = null;
  /** the events' names and argument texts so far, in UTF-16 units (a lower bound of their bytes, as above) */
  private eventUnits = 0;
  /** memory made so far (maxAllocatedBytes) */
  private allocated = 0;

  constructor(
    readonly state: WorldState,
    readonly ctx: ExecutionContext,
    readonly g: GasTable,
    readonly hooks: SolidVMHooks,
    /** finds the compiled contract runtime of an account, for calls between contracts */
    readonly loader: ContractLoader,
    baseGas: number,
  ) {
    this.gas = baseGas;
    this.limits = limitsOf(ctx.protocol);
    if (ctx.gasEnabled) {
      this.stepCap = 0;
      this.stepCap = this.nextCap();
    } else this.stepCap = ctx.protocol.stepLimit;
  }

  gasUsed(): number {
    return this.gas + this.steps * this.g.step;
  }

  private nextCap(): number {
    const left = Number(this.ctx.tx.gasLimit) - this.gasUsed();
    return this.steps + Math.max(0, Math.floor(left / this.g.step));
  }

  /** Called when steps pass stepCap: the step limit, or (gas on) a recount against the gas limit. */
  overLimit(): void {
    if (!this.ctx.gasEnabled) {
      throw new VmFailure('STEP_LIMIT', `step limit exceeded (${this.ctx.protocol.stepLimit} steps)`, 'other', {}, false);
    }
    this.checkGas();
    this.stepCap = this.nextCap();
  }

  checkGas(): void {
    if (this.ctx.gasEnabled && this.gasUsed() > Number(this.ctx.tx.gasLimit)) {
      throw new VmFailure('OUT_OF_GAS', 'out of gas', 'other', {}, false);
    }
  }

  sload(addr: string, path: string): string | undefined {
    this.gas += this.g.sload;
    return this.state.getStorage(addr, path);
  }

  sstore(addr: string, path: string, value: string | undefined): void {
    let m = this.origs.get(addr);
    if (m === undefined) {
      m = new Map();
      this.origs.set(addr, m);
    }
    if (!m.has(path)) m.set(path, this.state.getStorage(addr, path));
    this.gas += this.g.sstore;
    this.countWrite(addr, path, value);
    this.state.putStorage(addr, path, value);
  }

  /** Counts a storage write against maxStateBytes: a path written again counts its new value instead of the old one. */
  private countWrite(addr: string, path: string, value: string | undefined): void {
    let last = this.lastWritten;
    if (last === null || last.addr !== addr) {
      let lens = this.written.get(addr);
      if (lens === undefined) this.written.set(addr, (lens = new Map()));
      this.lastWritten = last = { addr, lens };
    }
    const len = value === undefined ? 0 : value.length;
    const before = last.lens.get(path);
    this.stateUnits += before === undefined ? path.length + len : len - before;
    last.lens.set(path, len);
    // the bound alone already exceeds the limit: fail now, not after writing the rest
    if (this.stateUnits > this.limits.maxStateBytes) this.exceeded('maxStateBytes');
  }

  /**
   * The exact UTF-8 counts of what the bounds left in doubt, once the
   * transaction has run: the state written (each path with the value the
   * state holds at the end) and the events' bytes.
   */
  checkFinalLimits(): void {
    const { maxStateBytes, maxEventBytes } = this.limits;
    if (this.stateUnits * 3 > maxStateBytes) {
      let bytes = 0;
      for (const [addr, lens] of this.written) {
        for (const path of lens.keys()) {
          const value = this.state.getStorage(addr, path);
          bytes += utf8Length(path) + (value === undefined ? 0 : utf8Length(value));
        }
      }
      if (bytes > maxStateBytes) this.exceeded('maxStateBytes');
    }
    if (this.eventUnits * 3 > maxEventBytes) {
      let bytes = 0;
      for (const e of this.events) {
        bytes += utf8Length(e.name);
        for (const [n, v] of e.args) bytes += utf8Length(n) + utf8Length(v);
      }
      if (bytes > maxEventBytes) this.exceeded('maxEventBytes');
    }
  }

  /** Fails the transaction for a limit: not catchable by the contract, like the step limit. */
  exceeded(name: keyof ExecutionLimits): never {
    throw new VmFailure('LIMIT', limitMessage(name, this.limits), 'other', {}, false);
  }

  /** Checks an event about to be emitted against maxEvents and (its lower bound) maxEventBytes. */
  countEvent(name: string, args: Array<[string, string]>): void {
    if (this.events.length + 1 > this.limits.maxEvents) this.exceeded('maxEvents');
    let units = name.length;
    for (const [n, v] of args) units += n.length + v.length;
    this.eventUnits += units;
    if (this.eventUnits > this.limits.maxEventBytes) this.exceeded('maxEventBytes');
  }

  /** A string about to exist in memory: at most maxMemoryBytes of UTF-8, and its UTF-16 units counted against maxAllocatedBytes. */
  memString(s: string): string {
    // a UTF-16 unit is at most 3 bytes of UTF-8: most strings need no count
    if (s.length * 3 > this.limits.maxMemoryBytes && utf8Length(s) > this.limits.maxMemoryBytes) this.exceeded('maxMemoryBytes');
    this.countAllocation(s.length);
    return s;
  }

  memBytes(b: Uint8Array): Uint8Array {
    if (b.length > this.limits.maxMemoryBytes) this.exceeded('maxMemoryBytes');
    this.countAllocation(b.length);
    return b;
  }

  /** Before allocating a memory value of `bytes` (a new array: 32 an element; new bytes/string: its length). */
  memAlloc(bytes: bigint): number {
    if (bytes > BigInt(this.limits.maxMemoryBytes)) this.exceeded('maxMemoryBytes');
    const n = Number(bytes);
    this.countAllocation(n);
    return n;
  }

  /** Counts memory the transaction makes against maxAllocatedBytes (JavaScript string lengths: the same on every engine). */
  countAllocation(bytes: number): void {
    this.allocated += bytes;
    if (this.allocated > this.limits.maxAllocatedBytes) this.exceeded('maxAllocatedBytes');
  }
}

/** UTF-8 length without encoding it (Buffer.byteLength counts natively). */
export function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** What a frame needs of the contract it runs in. */
export interface RuntimeContract {
  readonly name: string;
}

export type ContractLoader = (x: Exec, address: string) => unknown;

/** One activation of a function: its locals and who called it. */
export class Frame {
  constructor(
    readonly x: Exec,
    /** the contract whose storage this code reads and writes */
    readonly self: string,
    readonly sender: string,
    readonly value: bigint,
    readonly l: any[],
    readonly rt: RuntimeContract | null,
  ) {}
}

// --- deep storage operations (structs and arrays) -----------------------------

export function lengthPath(path: string): string {
  return path + '.length';
}

export function readLength(x: Exec, addr: string, path: string): bigint {
  const s = x.sload(addr, path + '.length');
  return s === undefined ? 0n : BigInt(s);
}

/** Copies a storage value into memory. Mapping members read as empty maps (they cannot be copied). */
export function readDeep(x: Exec, addr: string, path: string, t: SType): unknown {
  switch (t.k) {
    case 'struct':
      return t.fields.map((fd) => (fd.t.k === 'mapping' ? new Map() : readDeep(x, addr, `${path}.${fd.name}`, fd.t)));
    case 'array': {
      const n = t.len ?? Number(readLength(x, addr, path));
      // a storage array grows over many transactions: copying it into memory, again and again in a loop, is memory made like any other
      x.countAllocation(32 * n);
      const out = new Array(n);
      for (let i = 0; i < n; i++) out[i] = readDeep(x, addr, `${path}[${i}]`, t.elem);
      return out;
    }
    case 'mapping':
      return new Map();
    default:
      return codecOf(t).dec(x.sload(addr, path));
  }
}

/** Writes a memory value into storage, replacing what was there (old array tails are cleared). */
export function writeDeep(x: Exec, addr: string, path: string, t: SType, v: unknown): void {
  switch (t.k) {
    case 'struct': {
      const a = v as unknown[];
      t.fields.forEach((fd, i) => {
        if (fd.t.k !== 'mapping') writeDeep(x, addr, `${path}.${fd.name}`, fd.t, a[i]);
      });
      return;
    }
    case 'array': {
      const a = v as unknown[];
      if (t.len === null) {
        const old = Number(readLength(x, addr, path));
        for (let i = a.length; i < old; i++) deleteDeep(x, addr, `${path}[${i}]`, t.elem);
        x.sstore(addr, path + '.length', a.length === 0 ? undefined : String(a.length));
      }
      const n = t.len ?? a.length;
      for (let i = 0; i < n; i++) writeDeep(x, addr, `${path}[${i}]`, t.elem, a[i]);
      return;
    }
    case 'mapping':
      // a memory mapping (SolidVM argument form) written into a storage mapping
      for (const [k, e] of v as Map<string, unknown>) writeDeep(x, addr, `${path}<${k}>`, t.value, e);
      return;
    default:
      x.sstore(addr, path, codecOf(t).enc(v));
  }
}

/** `delete`: resets to the default value. Like Solidity, mappings inside are left alone. */
export function deleteDeep(x: Exec, addr: string, path: string, t: SType): void {
  switch (t.k) {
    case 'struct':
      for (const fd of t.fields) if (fd.t.k !== 'mapping') deleteDeep(x, addr, `${path}.${fd.name}`, fd.t);
      return;
    case 'array': {
      const n = t.len ?? Number(readLength(x, addr, path));
      for (let i = 0; i < n; i++) deleteDeep(x, addr, `${path}[${i}]`, t.elem);
      if (t.len === null) x.sstore(addr, path + '.length', undefined);
      return;
    }
    case 'mapping':
      return;
    default:
      x.sstore(addr, path, undefined);
  }
}
