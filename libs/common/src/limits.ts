// The execution limits of a chain: part of its protocol parameters (the
// genesis), so that every node of the chain fails the same transactions for
// the same reason. Each bounds something a transaction can make grow without
// bound otherwise — its state writes, its events, its return data, its
// strings, arrays and memory — and with it the execution result every
// service downstream carries, stores and serves. Exceeding one fails that
// transaction alone (`Failure`, its nonce consumed, nothing else changed),
// with a message naming the limit; never the JavaScript engine's own limits
// ("Invalid string length", out of memory), which differ between engines and
// would let two nodes disagree.

export interface ExecutionLimits {
  /**
   * Bytes of state a transaction writes: over the distinct storage keys it
   * writes, each key's bytes and those of the value it leaves (SolidVM: the
   * path and value texts, UTF-8; EVM: 32 + 32 bytes per slot).
   */
  maxStateBytes: number;
  /** events (EVM logs) a transaction emits */
  maxEvents: number;
  /** bytes of a transaction's events together: names and argument texts (EVM: topics and data) */
  maxEventBytes: number;
  /** bytes a transaction returns (SolidVM: the response's JSON text; EVM: the return data) */
  maxReturnBytes: number;
  /**
   * VM memory: the EVM's memory of a call frame; in SolidVM, which has no
   * linear memory, any one string or bytes value (its bytes) and any one
   * memory array (32 bytes an element, as the EVM lays it out). This is also
   * the limit of string and array lengths.
   */
  maxMemoryBytes: number;
  /**
   * SolidVM: bytes a transaction allocates in memory over its whole run —
   * every new array (32 bytes an element), bytes value and string it makes,
   * counted when made, never given back. maxMemoryBytes bounds one value; a
   * loop making many of them (4,096 arrays of 65,536 elements took a minute
   * and gigabytes for a few thousand steps) is bounded by this. Counting what
   * was made rather than what is live keeps the count the same on every node.
   */
  maxAllocatedBytes: number;
}

/**
 * The defaults, for a genesis that names none (every chain made before the
 * limits existed: its genesis, and so its ID, stays as it was). Chosen so
 * that ordinary contracts never meet them — a constructor pushing 2^14 array
 * elements writes about 300 KB — while the largest result a transaction can
 * produce stays a few megabytes, which every service can carry and serve.
 */
export const DEFAULT_LIMITS: ExecutionLimits = {
  maxStateBytes: 1_048_576,
  maxEvents: 1_024,
  maxEventBytes: 1_048_576,
  maxReturnBytes: 1_048_576,
  maxMemoryBytes: 2_097_152,
  maxAllocatedBytes: 67_108_864,
};

export const LIMIT_NAMES = Object.keys(DEFAULT_LIMITS) as Array<keyof ExecutionLimits>;

const complete = new WeakMap<object, ExecutionLimits>();

/** The limits of a protocol: those its genesis names, the defaults for the rest (made once per protocol object: every transaction asks). */
export function limitsOf(protocol: { limits?: Partial<ExecutionLimits> } | undefined): ExecutionLimits {
  const given = protocol?.limits;
  if (!given) return DEFAULT_LIMITS;
  let limits = complete.get(given);
  if (!limits) complete.set(given, (limits = { ...DEFAULT_LIMITS, ...given }));
  return limits;
}

/** Why a genesis's `protocol.limits` is not acceptable, or null. */
export function limitsError(limits: unknown): string | null {
  if (limits === undefined) return null;
  if (!limits || typeof limits !== 'object' || Array.isArray(limits)) return 'protocol.limits must be an object';
  for (const [name, value] of Object.entries(limits)) {
    if (!(LIMIT_NAMES as string[]).includes(name)) return `protocol.limits.${name} is not a limit (known: ${LIMIT_NAMES.join(', ')})`;
    if (!Number.isSafeInteger(value) || (value as number) < 1) return `protocol.limits.${name} must be a positive integer`;
  }
  return null;
}

/**
 * The message of a transaction that exceeded a limit: the same on every node
 * and in both VMs (it names the limit and its value, never the size reached,
 * which depends on where the VM noticed).
 */
export function limitMessage(name: keyof ExecutionLimits, limits: ExecutionLimits): string {
  const what: Record<keyof ExecutionLimits, string> = {
    maxStateBytes: 'the transaction writes more state than the chain allows',
    maxEvents: 'the transaction emits more events than the chain allows',
    maxEventBytes: "the transaction's events are larger than the chain allows",
    maxReturnBytes: 'the transaction returns more data than the chain allows',
    maxMemoryBytes: 'the transaction needs more VM memory than the chain allows',
    maxAllocatedBytes: 'the transaction allocates more VM memory over its run than the chain allows',
  };
  return `limit exceeded: ${what[name]} (protocol limit ${name} = ${limits[name]})`;
}
