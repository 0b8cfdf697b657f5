// Gas cost tables, versioned. The version in force is a protocol parameter of
// the genesis (ProtocolParams.gasTableVersion) so every node meters the same;
// a change of costs is a new version, never an edit of an existing one.
// SolidVM meters with them; the node charges a plain transfer its `tx` cost.
// (The EVM meters Ethereum's own costs.)

export interface GasTable {
  /** every transaction */
  tx: number;
  /** extra for a contract-creating transaction, and for each `new` */
  create: number;
  /** per interpreter step (statement, loop iteration) */
  step: number;
  /** per storage read */
  sload: number;
  /** per storage write */
  sstore: number;
  /** per emitted event, plus per argument */
  log: number;
  logArg: number;
  /** per call to another contract */
  call: number;
  /** per byte hashed by keccak256/sha256/ripemd160 */
  hashByte: number;
}

export const GAS_TABLES: Readonly<Record<number, GasTable>> = Object.freeze({
  1: Object.freeze({ tx: 21000, create: 32000, step: 10, sload: 200, sstore: 5000, log: 375, logArg: 50, call: 700, hashByte: 6 }),
});

export function gasTable(version: number): GasTable {
  const t = GAS_TABLES[version];
  if (!t) throw new Error(`unknown gas table version ${version}`);
  return t;
}
