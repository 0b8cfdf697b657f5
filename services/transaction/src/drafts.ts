// The spec's transaction objects (`{type, payload}`) turned into the fields a
// signature covers, before the nonce is known. Everything a request alone can
// show to be wrong is refused here with the field's path; what only the VM can
// know (an unknown method, arguments of the wrong shape) is left to execution.
//
// Vault-signed creations and calls carry their source and named arguments,
// for both VMs: the creation's `initOrData` is the source as UTF-8 (several
// files as the JSON text of `{fileName: source}` with sorted keys, as
// SolidVM stores them), and a call has empty `initOrData` with `funcName` and
// `args` (JSON text) in the metadata. Compiling EVM source and ABI-encoding
// EVM arguments is the executing VM's job (libs/evm, cached by source hash):
// this service does not know the ABI of a contract created elsewhere.
import type { SubmitItem, TxParamsInput } from '@platform/bus';
import { address, agreeingChain, integer, invalid, isObject, metadata as metadataField, requireObject, requireString } from './fields.js';

/** The signed fields of one transaction, less the nonce. */
export interface Draft {
  chainId: string;
  gasPrice: bigint;
  gasLimit: bigint;
  to: string | null;
  value: bigint;
  initOrData: Uint8Array;
  metadata: Record<string, string>;
}

/** The platform's client library defaults; ignored by execution while gas is disabled. */
export const DEFAULT_TX_PARAMS = { gasLimit: 32_100_000_000n, gasPrice: 1n } as const;

const VMS = ['EVM', 'SolidVM'];
const utf8 = new TextEncoder();
/** keys the service itself sets from the payload: a user's own values would change what the transaction means */
const DERIVED_KEYS = ['name', 'funcName', 'args'];

export function draftsOf(items: unknown, defaults: TxParamsInput | undefined, requestChain: string | null): Draft[] {
  if (!Array.isArray(items)) throw invalid('txs', 'must be an array of transactions');
  if (items.length === 0) throw invalid('txs', 'must hold at least one transaction');
  const base = txParams(defaults, 'txParams', { gasLimit: DEFAULT_TX_PARAMS.gasLimit, gasPrice: DEFAULT_TX_PARAMS.gasPrice });
  return items.map((item, i) => draftOf(item, `txs[${i}]`, base, requestChain));
}

function draftOf(item: unknown, at: string, base: { gasLimit: bigint; gasPrice: bigint }, requestChain: string | null): Draft {
  const { type, payload: rawPayload } = requireObject(item, at) as Partial<SubmitItem>;
  const p = `${at}.payload`;
  const payload = requireObject(rawPayload, p);
  const { gasLimit, gasPrice } = txParams(payload.txParams, `${p}.txParams`, base);
  const chainId = agreeingChain(requestChain, payload.chainid, `${p}.chainid`);
  const userMetadata = metadataField(payload.metadata, `${p}.metadata`);
  for (const key of DERIVED_KEYS) delete userMetadata[key];
  const value = payload.value === undefined ? 0n : integer(payload.value, `${p}.value`);
  // One object literal per draft, and the derived keys assigned onto the user's metadata: on Node 20 an
  // object made by a spread and then given new properties (`{ ...common, to }`) costs some microseconds
  // (docs/benchmarks.md "A trap of Node 20"). Fields are read in the order errors are reported.
  const draft = (to: string | null, initOrData: Uint8Array, metadata: Record<string, string>, amount = value): Draft => ({ chainId, gasLimit, gasPrice, value: amount, to, initOrData, metadata });

  switch (type) {
    case 'CONTRACT': {
      const name = requireString(payload.contract ?? payload.contractName, `${p}.contract`, { nonEmpty: true });
      const initOrData = utf8.encode(sourceText(payload.src, `${p}.src`));
      return draft(null, initOrData, Object.assign(userMetadata, { VM: vm(userMetadata, p), name, args: argsText(payload.args, `${p}.args`) }));
    }
    case 'FUNCTION': {
      const to = address(payload.contractAddress, `${p}.contractAddress`);
      return draft(
        to,
        new Uint8Array(0),
        Object.assign(userMetadata, {
          VM: vm(userMetadata, p),
          funcName: requireString(payload.method, `${p}.method`, { nonEmpty: true }),
          args: argsText(payload.args, `${p}.args`),
        }),
      );
    }
    case 'TRANSFER': {
      // a transfer is `to` with no code and no funcName (transactionKind in @platform/common)
      const to = address(payload.toAddress, `${p}.toAddress`);
      return draft(to, new Uint8Array(0), userMetadata, integer(payload.value, `${p}.value`));
    }
    default:
      throw invalid(`${at}.type`, `must be CONTRACT, FUNCTION or TRANSFER, got ${JSON.stringify(type)}`);
  }
}

function txParams(value: unknown, field: string, base: { gasLimit: bigint; gasPrice: bigint }): { gasLimit: bigint; gasPrice: bigint } {
  if (value === undefined || value === null) return base;
  const params = requireObject(value, field);
  return {
    gasLimit: params.gasLimit === undefined ? base.gasLimit : integer(params.gasLimit, `${field}.gasLimit`),
    gasPrice: params.gasPrice === undefined ? base.gasPrice : integer(params.gasPrice, `${field}.gasPrice`),
  };
}

function vm(metadata: Record<string, string>, p: string): string {
  const chosen = metadata.VM ?? 'EVM';
  if (!VMS.includes(chosen)) throw invalid(`${p}.metadata.VM`, `must be EVM or SolidVM, got ${JSON.stringify(chosen)}`);
  return chosen;
}

/** One source as it is; several files as JSON text with sorted keys (SolidVM's stored code form). */
function sourceText(src: unknown, field: string): string {
  if (typeof src === 'string') {
    if (src.trim() === '') throw invalid(field, 'must not be empty');
    return src;
  }
  if (!isObject(src)) throw invalid(field, src === undefined ? 'is required' : 'must be the source text or an object {fileName: source}');
  const names = Object.keys(src).sort();
  if (names.length === 0) throw invalid(field, 'must name at least one file');
  const sorted: Record<string, string> = {};
  for (const name of names) sorted[name] = requireString(src[name], `${field}.${name}`);
  return JSON.stringify(sorted);
}

function argsText(args: unknown, field: string): string {
  if (args === undefined || args === null) return '{}';
  if (typeof args !== 'object') throw invalid(field, 'must be an object keyed by parameter name (or an array of positional arguments)');
  return JSON.stringify(args);
}
