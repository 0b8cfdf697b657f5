// The live events' pure parts: what an execution result becomes (ids, order,
// data), what a Last-Event-ID names, and which messages each filter keeps.
// The stream itself is tested end to end (test-e2e/test/events.e2e.test.ts).
import type { ExecResult, Receipt } from '@platform/common';
import { passes, type EventFilter } from '../src/events/connection.js';
import { IDS_PER_BLOCK, blockMessages, eventId, parseEventId } from '../src/events/messages.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

function receipt(hash: string, events: Array<[string, string, string]>, changed: Array<[string, string]> = []): Receipt {
  return {
    transactionHash: hash,
    from: 'f'.repeat(40),
    status: 'Success',
    message: 'Success!',
    kind: 'SolidVM',
    response: '',
    returnValues: [],
    contractsCreated: [],
    contractsDeleted: [],
    gasUsed: '0',
    etherUsed: '0',
    stateChanges: changed.map(([address, contractName]) => ({ address, chainId: '', contractName, codeHash: '0'.repeat(64), vm: 'SolidVM', created: false, deleted: false, state: {}, diff: {} })),
    events: events.map(([address, contractName, name], index) => ({ address, chainId: '', contractName, name, args: [['by', 'x'], ['loud', 'True']], index })),
    time: 1,
    trace: '',
  };
}

const exec = (chainId: string, receipts: Receipt[]): ExecResult => ({ chainId, block: { number: 7, hash: '1'.repeat(64), timestamp: 100, parentHash: '2'.repeat(64), stateRoot: '3'.repeat(64) }, receipts });

const decode = (frame: Buffer) => {
  const [id, event, data] = frame.toString('utf8').trimEnd().split('\n');
  return { id: id.slice(4), event: event.slice(7), data: JSON.parse(data.slice(6)) };
};

describe('a block on the live events stream', () => {
  const block = blockMessages(42, exec('', [receipt('t1', [[A, 'Bell', 'Rang'], [B, 'Horn', 'Blew']], [[A, 'Bell']]), receipt('t2', [])]));

  test('is its block, then each transaction followed by its events, with ids sequence × 1,000,000 + position', () => {
    expect(block.messages.map((m) => [m.kind, m.index])).toEqual([['block', 0], ['tx', 1], ['event', 2], ['event', 3], ['tx', 4]]);
    expect(block.messages.map((m) => decode(m.frame).id)).toEqual(['42000000', '42000001', '42000002', '42000003', '42000004']);
    expect(Buffer.concat(block.messages.map((m) => m.frame))).toEqual(block.all);
  });

  test('carries the documented data; the main chain is null', () => {
    const [b, tx, event] = block.messages.map((m) => decode(m.frame));
    expect(b).toEqual({ id: '42000000', event: 'block', data: { hash: '1'.repeat(64), number: 7, timestamp: 100, parentHash: '2'.repeat(64), transactions: 2, chainId: null } });
    expect(tx.data).toEqual({ hash: 't1', status: 'Success', blockHash: '1'.repeat(64), blockNumber: 7, from: 'f'.repeat(40), message: 'Success!', chainId: null });
    expect(event.data).toEqual({ name: 'Rang', args: { by: 'x', loud: 'True' }, address: A, contractName: 'Bell', transactionHash: 't1', blockHash: '1'.repeat(64), blockNumber: 7, chainId: null });
    expect(decode(blockMessages(1, exec('c'.repeat(64), [])).messages[0].frame).data.chainId).toBe('c'.repeat(64));
  });

  test('a Last-Event-ID names the sequence and position it was made of; anything else is not one', () => {
    expect(parseEventId(eventId(42, 3))).toEqual({ seq: 42, index: 3 });
    expect(parseEventId('0')).toEqual({ seq: 0, index: 0 });
    expect(parseEventId(String(9_007_199_254 * IDS_PER_BLOCK + 1))).toEqual({ seq: 9_007_199_254, index: 1 });
    for (const bad of ['', '-1', '1.5', 'abc', '1e9', ' 1', '99999999999999999']) expect(parseEventId(bad)).toBeNull();
  });

  test('filters: contract (name or address) and event narrow transactions and events; blocks go by kind alone', () => {
    const keep = (filter: Partial<EventFilter>) =>
      block.messages.filter((m) => passes({ kinds: new Set(['block', 'tx', 'event']), chains: null, contract: null, event: null, ...filter }, m)).map((m) => m.index);
    expect(keep({})).toEqual([0, 1, 2, 3, 4]);
    expect(keep({ contract: 'Bell' })).toEqual([0, 1, 2]);
    expect(keep({ contract: B })).toEqual([0, 1, 3]);
    expect(keep({ contract: 'Nothing' })).toEqual([0]);
    expect(keep({ event: 'Blew' })).toEqual([0, 1, 3]);
    expect(keep({ contract: 'Bell', event: 'Blew' })).toEqual([0, 1]);
    expect(keep({ kinds: new Set(['event']) })).toEqual([2, 3]);
    expect(keep({ kinds: new Set(['tx']), event: 'Rang' })).toEqual([1]);
  });
});
