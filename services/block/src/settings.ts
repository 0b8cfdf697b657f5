// The block service's own settings, parsed once at the process edge from the
// environment (the node-wide ones come from @platform/common's loadConfig).
// A bad value stops the start with a ConfigError naming the variable.
import { ConfigError } from '@platform/common';

export interface BlockSettings {
  /** most transactions in one block (BLOCK_MAX_TXS) */
  maxTxs: number;
  /**
   * the longest a busy chain gathers transactions after its last cut
   * (BLOCK_MAX_WAIT_MS); it gathers less when its blocks are quick
   */
  maxWaitMs: number;
  /**
   * how long a transaction waits for an earlier nonce of its account before it
   * is put in a block anyway, where it fails as out of order (BLOCK_NONCE_GAP_MS)
   */
  nonceGapMs: number;
}

export const DEFAULT_BLOCK_SETTINGS: Readonly<BlockSettings> = Object.freeze({ maxTxs: 500, maxWaitMs: 100, nonceGapMs: 30_000 });

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `expected an integer from ${min} to ${max}, got ${value}`);
  return value;
}

export function loadBlockSettings(env: Env): BlockSettings {
  return Object.freeze({
    maxTxs: int(env, 'BLOCK_MAX_TXS', DEFAULT_BLOCK_SETTINGS.maxTxs, 1, 100_000),
    maxWaitMs: int(env, 'BLOCK_MAX_WAIT_MS', DEFAULT_BLOCK_SETTINGS.maxWaitMs, 0, 60_000),
    nonceGapMs: int(env, 'BLOCK_NONCE_GAP_MS', DEFAULT_BLOCK_SETTINGS.nonceGapMs, 0, 3_600_000),
  });
}
