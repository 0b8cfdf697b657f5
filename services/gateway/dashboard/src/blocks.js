// Blocks, read from the events stream's record (no REST endpoint lists
// blocks): a block's position is its sequence on the node's EXEC stream, and
// a replay from a position costs the server only what it sends before the
// page stops reading. The latest position and a block number's position are
// found by probes (a replay read up to its first block).
import { IDS_PER_BLOCK, readEvents, seqOf } from './api.js';
import { h, link, dl, table, section } from './dom.js';

export const PAGE = 20;
const MAIN = 'main';

/** positions seen: `${chain}:${number}` → sequence (at most REMEMBERED); and the latest sequence seen */
const known = new Map();
let latest = 0;

export const chainOf = (block) => block.chainId ?? MAIN;
export const blockHref = (number, chainId) => (chainId && chainId !== MAIN ? `#/block/${number}/${chainId}` : `#/block/${number}`);

/** transaction hash → its block's position, for the transactions seen (at most REMEMBERED, the oldest forgotten first) */
const txs = new Map();
const REMEMBERED = 10_000;

export function noteTxAt(position, hash) {
  txs.set(hash, position);
  if (txs.size > REMEMBERED) txs.delete(txs.keys().next().value);
}

export const txPosition = (hash) => txs.get(hash);

/** Remembers where a block (a `block` message) is. */
export function noteBlockAt(id, block) {
  const seq = seqOf(id);
  known.set(`${chainOf(block)}:${block.number}`, seq);
  if (known.size > REMEMBERED) known.delete(known.keys().next().value);
  latest = Math.max(latest, seq);
}

/** The first block at or after position `seq` (of `chainid` when given), or null when there is none yet. */
async function probe(seq, chainid) {
  const { messages } = await readEvents({ after: seq * IDS_PER_BLOCK - 1, kinds: 'block', chainid, limit: 1 });
  const [message] = messages;
  if (!message) return null;
  noteBlockAt(message.id, message.data);
  return { seq: seqOf(message.id), block: message.data };
}

/** The position of the latest block the user may see (0 when none). */
export async function latestSeq() {
  if (latest > 0) return latest;
  // where only the main chain writes, its block n is at position n + 1: a guess from its height, checked
  const ready = await fetch('/ready')
    .then((r) => r.json())
    .catch(() => null);
  const height = ready?.chains?.main?.height;
  let low = typeof height === 'number' ? ((await probe(height + 1))?.seq ?? 0) : 0;
  // then gallop, and halve: the last position whose probe finds a block
  let step = 1;
  for (let found = await probe(low + step); found; found = await probe(low + step)) {
    low = found.seq;
    step *= 2;
  }
  let high = low + step;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    const found = await probe(middle);
    if (found) low = found.seq;
    else high = middle;
  }
  latest = Math.max(latest, low);
  return latest;
}

/** The position of block `number` of a chain ('main' or its ID), or null when it does not exist (yet). */
export async function blockSeq(number, chain = MAIN) {
  const key = `${chain}:${number}`;
  if (known.has(key)) return known.get(key);
  // a guess from the nearest later block known of the chain, exact where no other chain wrote in between
  const anchor = [...known.entries()].filter(([k]) => k.startsWith(`${chain}:`)).map(([k, seq]) => [Number(k.slice(chain.length + 1)), seq]).filter(([n]) => n > number).sort((a, b) => a[0] - b[0])[0];
  if (anchor && anchor[1] - (anchor[0] - number) >= 1) await probe(anchor[1] - (anchor[0] - number), chain);
  if (known.has(key)) return known.get(key);
  // else: blocks are numbered in stream order, the first position whose block is at least `number`
  let low = 1;
  let high = (await latestSeq()) + 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const found = await probe(middle, chain);
    if (found && found.block.number >= number) high = middle;
    else low = found ? found.seq + 1 : high;
  }
  return known.get(key) ?? null;
}

const time = (seconds) => new Date(seconds * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC');

export function blockRow(id, block) {
  return h(
    'tr',
    {},
    h('td', {}, link(blockHref(block.number, block.chainId), String(block.number))),
    h('td', { className: block.chainId ? 'hash' : '' }, block.chainId ?? 'main'),
    h('td', { className: 'hash' }, block.hash),
    h('td', {}, time(block.timestamp)),
    h('td', {}, String(block.transactions)),
  );
}

export function blocksTable(rows) {
  const body = h('tbody', { id: 'blocks' }, rows);
  return h(
    'table',
    {},
    h('caption', {}, 'Blocks, newest first'),
    h('thead', {}, h('tr', {}, ['Number', 'Chain', 'Hash', 'Time', 'Transactions'].map((c) => h('th', { scope: 'col' }, c)))),
    body,
  );
}

/** `#/blocks` (the latest, live) or `#/blocks/<before>`: the blocks at the PAGE positions before `before`. */
export async function blocksPage(view, before) {
  const head = await latestSeq();
  const end = before ? Number(before) : head + 1;
  const start = Math.max(1, end - PAGE);
  const { messages } = await readEvents({ after: start * IDS_PER_BLOCK - 1, kinds: 'block', stop: (m) => seqOf(m.id) >= end });
  for (const m of messages) noteBlockAt(m.id, m.data);
  const rows = messages.reverse().map((m) => blockRow(m.id, m.data));
  const nav = h(
    'p',
    { className: 'pager' },
    before ? link(end + PAGE > head ? '#/blocks' : `#/blocks/${end + PAGE}`, '← Newer blocks') : h('span', {}, 'Live: new blocks appear at the top'),
    ' ',
    start > 1 ? link(`#/blocks/${start}`, 'Older blocks →') : '',
  );
  view.replaceChildren(h('p', {}, before ? `Stream positions ${start}–${end - 1} of the node's record of applied blocks, every chain you may see.` : `From stream position ${start} of the node's record of applied blocks, every chain you may see.`), blocksTable(rows), nav);
  return { live: !before };
}

const TX_PAGE = 50;

/** `#/block/<number>[/<chainId>]`: the block and its transactions, TX_PAGE at a time (a block may hold up to 100,000). */
export async function blockPage(view, number, chainId) {
  const chain = chainId || MAIN;
  const seq = await blockSeq(Number(number), chain);
  if (seq === null) throw new Error(`there is no block ${number} on ${chain === MAIN ? 'the main chain' : `chain ${chain}`} (yet)`);
  const start = seq * IDS_PER_BLOCK - 1;
  const block = (await readEvents({ after: start, kinds: 'block', chainid: chain, limit: 1 })).messages[0]?.data;
  if (!block || block.number !== Number(number)) throw new Error(`block ${number} could not be read`);
  const holder = h('div', {}, h('p', {}, 'Loading…'));
  /** a page of the block's transactions after id `after`; `earlier`: where the pages before began */
  const show = async (after, earlier) => {
    const { messages } = await readEvents({ after, kinds: 'tx', chainid: chain, limit: TX_PAGE, stop: (m) => seqOf(m.id) > seq });
    const first = earlier.length * TX_PAGE;
    holder.replaceChildren(
      table(
        'Transactions of the block',
        ['Hash', 'Status', 'From', 'Message'],
        messages.map(({ data: tx }) => [link(`#/tx/${tx.hash}/${seq}`, tx.hash, 'hash'), tx.status, link(`#/account/${tx.from}${tx.chainId ? `/${tx.chainId}` : ''}`, tx.from, 'hash'), tx.message ?? '']),
        'block-transactions',
      ),
      h(
        'p',
        { className: 'pager' },
        h('button', { type: 'button', disabled: earlier.length === 0, onclick: () => void show(earlier.at(-1), earlier.slice(0, -1)) }, '← Previous'),
        h('span', {}, ` transactions ${messages.length ? `${first + 1}–${first + messages.length}` : 'none'} of ${block.transactions} `),
        h('button', { type: 'button', disabled: first + messages.length >= block.transactions, onclick: () => void show(messages.at(-1).id, [...earlier, after]) }, 'Next →'),
      ),
    );
  };
  await show(start, []);
  view.replaceChildren(
    dl(
      [
        ['Number', String(block.number)],
        ['Chain', block.chainId ?? 'main'],
        ['Hash', h('span', { className: 'hash', id: 'block-hash' }, block.hash)],
        ['Parent', block.number > 0 ? link(blockHref(block.number - 1, block.chainId), block.parentHash, 'hash') : block.parentHash],
        ['Time', time(block.timestamp)],
        ['Transactions', h('span', { id: 'block-count' }, String(block.transactions))],
      ],
      'block-fields',
    ),
    section('Transactions of the block', holder),
    h('p', { className: 'pager' }, block.number > 0 ? link(blockHref(block.number - 1, block.chainId), '← Previous block') : '', ' ', link(blockHref(block.number + 1, block.chainId), 'Next block →')),
  );
}
