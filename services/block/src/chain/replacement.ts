// Replacing a block that a majority of the validators refused
// (docs/network.md "A block the majority refuses is replaced").
//
// A block whose header says a state root that more than half of the
// validators do not compute is never applied by them. Its height is given
// again: the next proposer appends, after it and after every block built on
// it, a block at the same height with the same parent, `header.replaces`
// naming the refused block and `refusals` carrying the validators' signed
// attestations. Every node checks that evidence before it applies the
// replacement, whether it refused the block itself a moment ago or reads
// the stream years later; the refused block and its descendants stay on the
// stream, set aside.
import type { Block } from '@platform/common';
import { attestationSigner, majorityOf } from './attestations.js';

/**
 * Why `replacement` may not replace `refused` (the block this node set aside
 * at that height), or null when its refusals prove a majority: more than half
 * of `validators`, each once, signed that they computed for the refused block
 * a state root other than its header's.
 */
export function replacementError(replacement: Block, refused: Block, validators: readonly string[]): string | null {
  const h = replacement.header;
  if (h.replaces !== refused.hash) return `it replaces ${h.replaces}, the block set aside at height ${refused.header.number} is ${refused.hash}`;
  if (h.number !== refused.header.number || h.parentHash !== refused.header.parentHash) return 'it is not at the refused block\'s height, on the refused block\'s parent';
  if (validators.length === 0) return 'the chain has no validators to refuse a block';
  const signers = new Set<string>();
  for (const a of replacement.refusals ?? []) {
    if (!a || typeof a !== 'object') return 'a refusal is not an attestation';
    if (a.chainId !== h.chainId || a.height !== h.number || a.hash !== refused.hash) return `a refusal by ${a.node} is of another block`;
    if (a.stateRoot === refused.header.stateRoot) return `a refusal by ${a.node} computed the refused block's own state root`;
    const signer = attestationSigner(a);
    if (signer === null || !validators.includes(signer)) return `a refusal by ${a.node} is not signed by a validator`;
    signers.add(signer);
  }
  const needed = majorityOf(validators.length);
  if (signers.size < needed) return `${signers.size} validators refused the block, ${needed} of ${validators.length} are needed`;
  return null;
}
