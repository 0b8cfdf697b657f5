// Raw (self-signed) transactions: the spec's body checked field by field, and
// the signer recovered without guessing which list was signed (docs/conventions.md
// "Raw transactions: the signed bytes"): recovering from the wrong hash yields
// some other valid-looking address, so the platform's form is the only one
// tried when `address` is absent; the spec's literal seven-item list and the
// metadata-covering list are accepted only when they recover to `address`.
import type { RawTransactionBody } from '@platform/bus';
import { PlatformError } from '@platform/common';
import { hexToBytes, isHighS, recoverAddress, signingHash, type SigningForm } from '@platform/crypto';
import { ArgumentError, checkArgsText } from '@platform/vm';
import type { Draft } from './drafts.js';
import { address as addressField, agreeingChain, hexText, integer, invalid, metadata as metadataField, requireObject } from './fields.js';
import { unsignedFields, type Signature } from './signed.js';

export interface RawTransaction {
  draft: Draft;
  nonce: number;
  from: string;
  signature: Signature;
  signingForm: SigningForm;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function parseRaw(body: unknown, requestChain: string | null, requireSignedMetadata: boolean): RawTransaction {
  const raw = requireObject(body, 'body') as Partial<Record<keyof RawTransactionBody, unknown>>;
  const nonce = Number(integer(raw.nonce, 'nonce', BigInt(Number.MAX_SAFE_INTEGER)));
  const draft: Draft = {
    gasPrice: integer(raw.gasPrice, 'gasPrice'),
    gasLimit: integer(raw.gasLimit, 'gasLimit'),
    to: raw.to === undefined || raw.to === null || raw.to === '' ? null : addressField(raw.to, 'to'),
    value: integer(raw.value, 'value'),
    chainId: agreeingChain(requestChain, raw.chainId, 'chainId'),
    initOrData: hexToBytes(hexText(raw.initOrData, 'initOrData')),
    metadata: metadataField(raw.metadata, 'metadata'),
  };
  checkMetadata(draft);
  const r = hexText(raw.r, 'r', { maxBytes: 32 }).padStart(64, '0');
  const s = hexText(raw.s, 's', { maxBytes: 32 }).padStart(64, '0');
  const v = raw.v === undefined || raw.v === null ? null : integer(raw.v, 'v', 255n);
  if (v !== null && v !== 27n && v !== 28n) throw invalid('v', `must be 27 or 28 (27 plus the recovery id), got ${v}`);
  const claimed = raw.address === undefined || raw.address === null || raw.address === '' ? null : addressField(raw.address, 'address');
  if (v === null && claimed === null) throw invalid('v', 'is required when address is not given: without it the public key cannot be recovered');
  // a high-s twin of every signature exists; accepting both would give one transaction two hashes
  if (isHighS(hexToBytes(s))) throw invalid('s', 'is in the upper half of the curve order (high-s): use n - s and flip v (27 <-> 28)');

  const recovered = recoverSigner(draft, nonce, { r, s, v: v === null ? null : Number(v) }, claimed, requireSignedMetadata);
  return { draft, nonce, from: recovered.from, signature: { r, s, v: recovered.v }, signingForm: recovered.form };
}

function checkMetadata(draft: Draft): void {
  const { VM, name, args } = draft.metadata;
  if (VM !== undefined && VM !== 'EVM' && VM !== 'SolidVM') throw invalid('metadata.VM', `must be EVM or SolidVM, got ${JSON.stringify(VM)}`);
  if (VM === 'SolidVM' && draft.to === null) {
    if (!name) throw invalid('metadata.name', 'is required for a SolidVM creation: the name of the contract to create');
    try {
      utf8.decode(draft.initOrData);
    } catch {
      throw invalid('initOrData', 'must be the hex of the UTF-8 source of a SolidVM contract');
    }
  }
  if (args !== undefined && args !== '') checkArgs(args);
}

/**
 * Arguments that cannot parse are refused before execution (docs/conventions.md
 * "Errors (platform endpoints)": 422), by the grammar both VMs decode them with
 * (@platform/vm); whether they fit the parameters is the VM's to say.
 */
function checkArgs(args: string): void {
  try {
    checkArgsText(args);
  } catch (err) {
    if (!(err instanceof ArgumentError)) throw err;
    throw new PlatformError('ARGS_UNPARSABLE', 'metadata.args does not parse: give the arguments as a comma-separated list in parentheses, e.g. (1,"x"), or as JSON', {
      field: 'metadata.args',
    });
  }
}

function recoverSigner(
  draft: Draft,
  nonce: number,
  sig: { r: string; s: string; v: number | null },
  claimed: string | null,
  requireSignedMetadata: boolean,
): { from: string; v: number; form: SigningForm } {
  const fields = unsignedFields(draft, nonce);
  // on a private chain the literal list is the platform's: trying it again would add nothing
  const forms: SigningForm[] = requireSignedMetadata ? ['metadata'] : claimed === null ? ['platform'] : draft.chainId === '' ? ['platform', 'literal', 'metadata'] : ['platform', 'metadata'];
  const ids: Array<0 | 1> = sig.v === null ? [0, 1] : [sig.v === 27 ? 0 : 1];
  const r = hexToBytes(sig.r);
  const s = hexToBytes(sig.s);
  const recover = (form: SigningForm, id: 0 | 1): string | null => {
    try {
      return recoverAddress(signingHash(fields, form), r, s, id);
    } catch {
      return null; // r or s out of range, or no point: no signer under this form
    }
  };
  for (const form of forms) {
    for (const id of ids) {
      const from = recover(form, id);
      if (from !== null && (claimed === null || from === claimed)) return { from, v: 27 + id, form };
    }
  }
  if (claimed === null) throw invalid('r', 'and s, v are not a valid signature: no public key recovers from them');
  if (requireSignedMetadata && ids.some((id) => recover('platform', id) === claimed)) {
    throw new PlatformError('METADATA_UNSIGNED', 'this node requires the signature to cover the metadata (RAW_TX_REQUIRE_SIGNED_METADATA): sign the list with the sorted [key, value] pairs of metadata appended', {
      field: 'metadata',
    });
  }
  throw new PlatformError('SIGNER_MISMATCH', `the signature was not made by address ${claimed} over this transaction in any accepted form (${forms.join(', ')})`, { field: 'address' });
}
