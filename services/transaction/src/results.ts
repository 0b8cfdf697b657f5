// A receipt of this node's execution → the spec's transaction result object
// (spec "Transaction result object", docs/conventions.md "Transactions").
import { transactionKind, type ExecResult, type Receipt, type Transaction, type TxResult, type TxResultData, type TxResultDetail } from '@platform/common';

const utf8 = new TextDecoder();

/** The spec's faucet answer while gas is disabled. */
export const ZERO_HASH_SUCCESS: TxResult = { status: 'Success', hash: '0'.repeat(64), txResult: null, data: null };

export function pending(hash: string): TxResult {
  return { status: 'Pending', hash, txResult: null, data: null };
}

/** `tx` is the admitted transaction when this node admitted it (a raw one's body is not read: its result carries no data); results of others' carry no `data`. */
export function finalResult(exec: ExecResult, receipt: Receipt, tx: Transaction | undefined): TxResult {
  return {
    status: receipt.status,
    hash: receipt.transactionHash,
    txResult: detailOf(exec, receipt),
    data: receipt.status === 'Success' && tx ? dataOf(exec, receipt, tx) : null,
  };
}

function detailOf(exec: ExecResult, receipt: Receipt): TxResultDetail {
  const storage = storageTexts(receipt);
  return {
    blockHash: exec.block.hash,
    transactionHash: receipt.transactionHash,
    message: receipt.message,
    response: receipt.response,
    contractsCreated: receipt.contractsCreated.map((c) => c.address).join(','),
    contractsDeleted: receipt.contractsDeleted.join(','),
    gasUsed: hex64(receipt.gasUsed),
    etherUsed: hex64(receipt.etherUsed),
    ...storage,
    time: receipt.time,
    kind: receipt.kind,
    chainId: exec.chainId === '' ? null : exec.chainId,
    trace: receipt.trace,
    // the platform's lower-case form of the top-level status
    status: receipt.status === 'Success' ? 'success' : 'failure',
  };
}

/**
 * JSON text of `{address: {path: value}}`: `stateDiff` every path the
 * transaction wrote, `newStorage` those now holding a value, `deletedStorage`
 * those set back to the default (a null in the diff).
 */
function storageTexts(receipt: Receipt): Pick<TxResultDetail, 'stateDiff' | 'newStorage' | 'deletedStorage'> {
  const diff: Record<string, Record<string, unknown>> = {};
  const written: Record<string, Record<string, unknown>> = {};
  const deleted: Record<string, Record<string, unknown>> = {};
  for (const change of receipt.stateChanges) {
    for (const [path, value] of Object.entries(change.diff)) {
      (diff[change.address] ??= {})[path] = value;
      if (value === null) (deleted[change.address] ??= {})[path] = null;
      else (written[change.address] ??= {})[path] = value;
    }
  }
  return { stateDiff: JSON.stringify(diff), newStorage: JSON.stringify(written), deletedStorage: JSON.stringify(deleted) };
}

function dataOf(exec: ExecResult, receipt: Receipt, tx: Transaction): TxResultData | null {
  // spec "Raw (self-signed) transaction body": the raw endpoint's data is null
  if (tx.origin === 'raw') return null;
  switch (transactionKind(tx)) {
    case 'call':
      return { tag: 'Call', contents: receipt.returnValues };
    case 'transfer':
      return {
        tag: 'Send',
        contents: {
          hash: tx.hash,
          from: tx.from,
          to: tx.to ?? '',
          value: tx.value,
          nonce: tx.nonce,
          gasLimit: tx.gasLimit,
          gasPrice: tx.gasPrice,
          codeOrData: tx.initOrData,
          r: tx.r,
          s: tx.s,
          v: tx.v.toString(16),
          chainId: tx.chainId === '' ? null : tx.chainId,
          metadata: tx.metadata,
        },
      };
    case 'create': {
      // the uploaded contract, not one its constructor created with `new`
      const created = receipt.contractsCreated.find((c) => c.name === tx.metadata.name && c.appName === null) ?? receipt.contractsCreated[0];
      if (!created) return null;
      return {
        tag: 'Upload',
        contents: {
          // SolidVM has no bytecode: its upload answers empty strings, as the platform does
          bin: created.bin ?? '',
          'bin-runtime': created.binRuntime ?? '',
          address: created.address,
          chainId: exec.chainId === '' ? null : exec.chainId,
          codeHash: { kind: created.vm, digest: created.codeHash },
          name: created.name,
          src: utf8.decode(Buffer.from(tx.initOrData, 'hex')),
          xabi: created.xabi,
        },
      };
    }
  }
}

/** A decimal amount as 64 hex digits (the spec's `gasUsed`, `etherUsed`). */
export function hex64(decimal: string): string {
  return BigInt(decimal || '0').toString(16).padStart(64, '0');
}
