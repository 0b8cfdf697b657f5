// What runTx would charge around the EVM's own metering: runCall meters only
// execution, so the intrinsic cost and the refund cap are applied here, with
// Cancun's constants (the hardfork is pinned, so these are too).
const TX_GAS = 21_000n;
const CREATE_GAS = 32_000n;
const ZERO_BYTE_GAS = 4n;
const NONZERO_BYTE_GAS = 16n;
/** EIP-3860: per 32-byte word of init code */
const INITCODE_WORD_GAS = 2n;
/** EIP-3529: at most a fifth of the gas used is refunded */
const MAX_REFUND_QUOTIENT = 5n;

/**
 * The limit of a transaction when gas is disabled (the spec: gas is then
 * ignored). Ethereum's block gas limit: ample for any real deployment, and it
 * still ends a runaway loop in seconds. A constant of this library, so every
 * node agrees on it.
 */
export const UNMETERED_GAS_LIMIT = 30_000_000n;

export function intrinsicGas(data: Uint8Array, creation: boolean): bigint {
  let gas = TX_GAS;
  let zeros = 0;
  for (const b of data) if (b === 0) zeros++;
  gas += BigInt(zeros) * ZERO_BYTE_GAS + BigInt(data.length - zeros) * NONZERO_BYTE_GAS;
  if (creation) gas += CREATE_GAS + BigInt(Math.ceil(data.length / 32)) * INITCODE_WORD_GAS;
  return gas;
}

/** Gas a transaction uses: intrinsic plus execution, less the capped refund (forfeited on failure). */
export function totalGasUsed(intrinsic: bigint, execution: bigint, refund: bigint): bigint {
  const used = intrinsic + execution;
  const cap = used / MAX_REFUND_QUOTIENT;
  return used - (refund < cap ? refund : cap);
}
