// The overview: the height, transactions per second and block time (figures
// and charts of the latest main-chain blocks), the services' health from
// /ready, the peers, and the latest transactions — kept current by the live
// events, never by polling.
import { authorized, readEvents, seqOf, IDS_PER_BLOCK } from './api.js';
import { $, h, link } from './dom.js';
import { drawBars } from './chart.js';
import { latestSeq, noteBlockAt, noteTxAt, blockHref } from './blocks.js';

const LATEST = 20;
const CHART_BLOCKS = 30;

export async function showHealth() {
  const answer = await fetch('/ready').then((r) => r.json());
  $('health').replaceChildren(...Object.entries(answer.checks ?? {}).map(([name, ok]) => h('li', { className: ok ? 'ok' : 'bad' }, `${name}: ${ok ? 'ok' : 'failing'}`)));
  const main = answer.chains?.main;
  if (main && typeof main.height === 'number') setHeight(main.height);
}

export async function showPeers() {
  const peers = await authorized('/platform-api/eth/v1.2/peers');
  $('peers').replaceChildren(
    ...(peers.length === 0
      ? [h('li', {}, 'None: this node is a network of its own.')]
      : peers.map((p) => h('li', { className: p.connected ? 'ok' : 'bad' }, `${p.node} (${p.organization}, ${p.address}): ${p.connected ? 'connected' : 'not connected'}`))),
  );
}

let height = -1;
function setHeight(value) {
  if (value <= height) return;
  height = value;
  $('height').textContent = String(value);
}

/** the latest main-chain blocks, by number: {number, time (seconds), txs} */
const recent = [];

function redraw() {
  const last = recent.at(-1);
  const minute = recent.filter((b) => b.time >= last.time - 60);
  const span = Math.max(1, last.time - minute[0].time);
  $('rate').textContent = (minute.reduce((n, b) => n + b.txs, 0) / span).toFixed(1);
  const gaps = recent.slice(1).map((b, i) => b.time - recent[i].time);
  if (gaps.length > 0) $('block-time').textContent = `${(gaps.reduce((a, b) => a + b, 0) / gaps.length).toFixed(2)} s`;
  const rates = recent.slice(1).map((b, i) => b.txs / Math.max(1, b.time - recent[i].time));
  drawBars($('rate-chart'), rates, `Transactions per second of the last ${rates.length} blocks, the latest ${rates.at(-1)?.toFixed(1) ?? 'none'}`);
  drawBars($('block-time-chart'), gaps, `Seconds between the last ${gaps.length + 1} blocks, the latest ${gaps.at(-1) ?? 'none'}`);
}

export function noteBlock(id, block) {
  noteBlockAt(id, block);
  if (block.chainId !== null) return;
  setHeight(block.number);
  if (recent.some((b) => b.number === block.number)) return;
  // the record's blocks may be read while live ones arrive: kept in order of number
  recent.push({ number: block.number, time: block.timestamp, txs: block.transactions });
  recent.sort((a, b) => a.number - b.number);
  while (recent.length > CHART_BLOCKS) recent.shift();
  redraw();
}

const TX_POSITIONS = 3;

/**
 * The charts and the latest transactions start from the node's record: the
 * last CHART_BLOCKS positions' main-chain blocks and the last TX_POSITIONS
 * positions' transactions. Answers the last position read, after which the
 * live stream takes over (from there: nothing missed, nothing twice).
 */
export async function loadRecent() {
  const head = await latestSeq();
  if (head === 0) return 0;
  const upTo = (m) => seqOf(m.id) > head;
  const blocks = await readEvents({ after: Math.max(1, head - CHART_BLOCKS + 1) * IDS_PER_BLOCK - 1, kinds: 'block', chainid: 'main', stop: upTo });
  for (const m of blocks.messages) noteBlock(m.id, m.data);
  const txs = await readEvents({ after: Math.max(1, head - TX_POSITIONS + 1) * IDS_PER_BLOCK - 1, kinds: 'tx', stop: upTo });
  for (const m of txs.messages.slice(-LATEST)) noteTransaction(m.data, seqOf(m.id));
  return head;
}

export function noteTransaction(tx, position) {
  noteTxAt(position, tx.hash);
  const cell = (content, className = '') => h('td', { className }, content);
  const row = h(
    'tr',
    {},
    cell(link(`#/tx/${tx.hash}/${position}`, tx.hash), 'hash'),
    cell(tx.status, tx.status === 'Success' ? 'ok' : 'bad'),
    cell(link(blockHref(tx.blockNumber, tx.chainId), String(tx.blockNumber))),
    cell(tx.chainId ?? 'main', tx.chainId ? 'hash' : ''),
  );
  const body = $('transactions');
  body.prepend(row);
  while (body.rows.length > LATEST) body.deleteRow(body.rows.length - 1);
}
