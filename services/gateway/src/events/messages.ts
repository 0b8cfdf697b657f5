// What one execution result becomes on the live events stream: the block,
// then each transaction's result followed by its events, each already
// rendered as its SSE frame, once, whatever the number of subscribers.
//
// Ids: the node's EXEC stream holds one message per applied block, across
// every chain, in one sequence that only grows and is kept (the source every
// read model is rebuilt from). A message's id is that sequence × 1,000,000
// plus its position among its block's messages, so ids strictly increase
// across all chains, and an id names the place to resume from in the node's
// own record.
import type { ExecResult, Receipt } from '@platform/common';

export type EventKind = 'block' | 'tx' | 'event';
export const EVENT_KINDS: readonly EventKind[] = ['block', 'tx', 'event'];

/** messages one block may carry: the block, and its transactions and events together below this */
export const IDS_PER_BLOCK = 1_000_000;

export interface StreamMessage {
  kind: EventKind;
  /** position among the block's messages: the id's last six digits */
  index: number;
  /** '' for the main chain, else its 64-hex ID */
  chainId: string;
  /** a transaction: every contract address and name it touched; an event: its contract's address and name */
  contracts: ReadonlySet<string>;
  /** an event: its name; a transaction: the names of the events it emitted */
  names: ReadonlySet<string>;
  /** the SSE frame: `id:`, `event:`, `data:`, encoded once for every connection */
  frame: Buffer;
}

/** One EXEC message's stream messages, in id order. */
export interface BlockMessages {
  seq: number;
  chainId: string;
  messages: StreamMessage[];
  /** every frame, in order: what a connection taking all of the block writes */
  all: Buffer;
}

export function eventId(seq: number, index: number): string {
  return String(seq * IDS_PER_BLOCK + index);
}

/** A `Last-Event-ID` as the EXEC sequence and the position in its block it names; null when it is not one of ours. */
export function parseEventId(text: string): { seq: number; index: number } | null {
  if (!/^\d{1,16}$/.test(text)) return null;
  const id = Number(text);
  if (!Number.isSafeInteger(id)) return null;
  return { seq: Math.floor(id / IDS_PER_BLOCK), index: id % IDS_PER_BLOCK };
}

function frame(kind: EventKind, seq: number, index: number, data: unknown): Buffer {
  return Buffer.from(`id: ${eventId(seq, index)}\nevent: ${kind}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Every contract a transaction touched: created, changed, deleted or emitting, by address and by name. */
function touched(receipt: Receipt): Set<string> {
  const out = new Set<string>();
  for (const c of receipt.contractsCreated) out.add(c.address).add(c.name);
  for (const c of receipt.stateChanges) out.add(c.address).add(c.contractName);
  for (const e of receipt.events) out.add(e.address).add(e.contractName);
  for (const address of receipt.contractsDeleted) out.add(address);
  return out;
}

/**
 * The stream messages of the execution result at `seq`. A block with more
 * messages than its ids hold (a million transactions and events) keeps the
 * first ones: no block the node makes comes near it (BLOCK_MAX_TXS ≤ 100,000).
 */
export function blockMessages(seq: number, exec: ExecResult): BlockMessages {
  const chainId = exec.chainId;
  const chain = chainId === '' ? null : chainId;
  const { block } = exec;
  const messages: StreamMessage[] = [
    {
      kind: 'block',
      index: 0,
      chainId,
      contracts: new Set(),
      names: new Set(),
      frame: frame('block', seq, 0, { hash: block.hash, number: block.number, timestamp: block.timestamp, parentHash: block.parentHash, transactions: exec.receipts.length, chainId: chain }),
    },
  ];
  for (const receipt of exec.receipts) {
    if (messages.length >= IDS_PER_BLOCK) break;
    const tx = { hash: receipt.transactionHash, status: receipt.status, blockHash: block.hash, blockNumber: block.number, from: receipt.from, message: receipt.message, chainId: chain };
    messages.push({ kind: 'tx', index: messages.length, chainId, contracts: touched(receipt), names: new Set(receipt.events.map((e) => e.name)), frame: frame('tx', seq, messages.length, tx) });
    for (const event of receipt.events) {
      if (messages.length >= IDS_PER_BLOCK) break;
      const data = {
        name: event.name,
        args: Object.fromEntries(event.args),
        address: event.address,
        contractName: event.contractName,
        transactionHash: receipt.transactionHash,
        blockHash: block.hash,
        blockNumber: block.number,
        chainId: chain,
      };
      messages.push({ kind: 'event', index: messages.length, chainId, contracts: new Set([event.address, event.contractName]), names: new Set([event.name]), frame: frame('event', seq, messages.length, data) });
    }
  }
  return { seq, chainId, messages, all: Buffer.concat(messages.map((m) => m.frame)) };
}
