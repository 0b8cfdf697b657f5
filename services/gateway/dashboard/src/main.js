// The dashboard's script: sign-in, then one static page whose pages are
// chosen by the address's hash (#/blocks, #/block/<n>, #/tx/<hash>,
// #/account/<address>, #/contract/<table>/<address>, #/chains, #/chain/<id>,
// #/contracts, #/key), each read from the REST interface when opened; the
// overview and the blocks list follow the live events stream (EventSource
// with a ticket: it cannot send the token), never polling.
import { json, authorized, setToken, seqOf, IDS_PER_BLOCK } from './api.js';
import { $, h, say } from './dom.js';
import { signIn, finishSignIn, usernameOf } from './auth.js';
import { showHealth, showPeers, noteBlock, noteTransaction, loadRecent } from './overview.js';
import { blocksPage, blockPage, blockRow, PAGE } from './blocks.js';
import { transactionPage, accountPage, contractPage, chainsPage, chainPage, keyPage } from './pages.js';

/** hash route → [title, nav entry, render(view, ...args)]; the overview and the query box are static sections of the page */
const ROUTES = {
  '': ['Overview', '#/', null],
  blocks: ['Blocks', '#/blocks', blocksPage],
  block: ['Block', '#/blocks', blockPage],
  tx: ['Transaction', '#/', transactionPage],
  account: ['Account', '#/', accountPage],
  contract: ['Contract', '#/contracts', contractPage],
  contracts: ['Contracts: a cirrus query', '#/contracts', null],
  chains: ['Chains', '#/chains', chainsPage],
  chain: ['Chain', '#/chains', chainPage],
  key: ['My key and certificate', '#/key', keyPage],
};

/** whether the blocks list shown is the latest page, which live blocks extend */
let liveBlocks = false;

function queryUrl() {
  const query = $('query-text').value.trim().replace(/^\?/, '');
  return `/cirrus/search/${encodeURIComponent($('query-table').value.trim())}${query ? `?${query}` : ''}`;
}

async function runQuery() {
  const url = queryUrl();
  $('query-url').textContent = url;
  try {
    $('query-rows').textContent = JSON.stringify(await authorized(url), null, 2);
  } catch (err) {
    $('query-rows').textContent = err.message;
  }
}

/** a part of the hash as typed; a malformed escape stays as it is (the page then says what it cannot find) */
function decoded(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

let routing = 0;
async function route() {
  const [name = '', ...args] = location.hash.replace(/^#\/?/, '').split('/').map(decoded);
  const [title, nav, render] = ROUTES[name] ?? ROUTES[''];
  const turn = ++routing;
  liveBlocks = false;
  $('page-overview').hidden = Boolean(ROUTES[name]) && name !== '';
  $('page-contracts').hidden = name !== 'contracts';
  $('page-view').hidden = !render;
  for (const a of document.querySelectorAll('nav a')) {
    if (a.getAttribute('href') === nav) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.title = `${title} · Node dashboard`;
  if (name === 'contracts' && args[0]) {
    $('query-table').value = args[0];
    $('query-url').textContent = queryUrl();
  }
  if (!render) return;
  const view = $('view');
  $('view-title').textContent = args[0] && name !== 'blocks' && name !== 'chains' ? `${title} ${args[0]}` : title;
  view.replaceChildren(h('p', {}, 'Loading…'));
  view.setAttribute('aria-busy', 'true');
  // keyboard and screen-reader users land on the new page's heading
  $('view-title').focus();
  try {
    const fresh = h('div');
    const answer = await render(fresh, ...args);
    if (turn !== routing) return;
    view.replaceChildren(...fresh.childNodes);
    liveBlocks = name === 'blocks' && Boolean(answer?.live);
  } catch (err) {
    if (turn !== routing) return;
    view.replaceChildren(h('p', { className: 'bad', role: 'alert' }, err.message));
  } finally {
    view.removeAttribute('aria-busy');
  }
}

/** The live stream, opened again (with a new ticket, from the last id) whenever it ends. */
async function follow(token, lastEventId = '') {
  const { body } = await json('/platform/v2.3/events/ticket', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  const query = new URLSearchParams({ ticket: body.ticket, kinds: 'block,tx' });
  if (lastEventId) query.set('lastEventId', lastEventId);
  const events = new EventSource(`/platform/v2.3/events?${query}`);
  let last = lastEventId;
  events.addEventListener('block', (e) => {
    last = e.lastEventId;
    const block = JSON.parse(e.data);
    noteBlock(Number(e.lastEventId), block);
    const list = $('blocks');
    if (liveBlocks && list) {
      list.prepend(blockRow(Number(e.lastEventId), block));
      while (list.rows.length > PAGE) list.deleteRow(list.rows.length - 1);
    }
  });
  events.addEventListener('tx', (e) => {
    last = e.lastEventId;
    const tx = JSON.parse(e.data);
    noteTransaction(tx, seqOf(e.lastEventId));
  });
  events.addEventListener('open', () => say('Live'));
  const reopen = () => {
    events.close();
    say('Reconnecting…', false);
    setTimeout(() => follow(token, last).catch((err) => say(err.message, false)), 1_000);
  };
  events.addEventListener('lagged', reopen);
  events.addEventListener('error', () => {
    if (events.readyState === EventSource.CLOSED) reopen();
  });
}

async function start() {
  const { body: config } = await json('/dashboard/config.json');
  const { body: discovery } = await json(config.discoveryUrl);
  $('sign-in').addEventListener('click', () => signIn(config, discovery).catch((err) => say(err.message, false)));
  $('sign-out').addEventListener('click', () => {
    sessionStorage.removeItem('dashboard.token');
    location.reload();
  });
  const params = new URLSearchParams(location.search);
  if (params.has('code') || params.has('error')) await finishSignIn(config, discovery, params);
  const token = sessionStorage.getItem('dashboard.token');
  if (!token) {
    $('signed-out').hidden = false;
    say('Signed out');
    return;
  }
  setToken(token);
  $('who').textContent = usernameOf(token);
  $('sign-out').hidden = false;
  $('signed-in').hidden = false;
  $('nav').hidden = false;
  for (const input of ['query-table', 'query-text']) $(input).addEventListener('input', () => ($('query-url').textContent = queryUrl()));
  $('query-form').addEventListener('submit', (e) => {
    e.preventDefault();
    void runQuery();
  });
  window.addEventListener('hashchange', () => void route());
  say('Signed in');
  await route();
  await showHealth();
  const head = await loadRecent();
  await follow(token, String((head + 1) * IDS_PER_BLOCK - 1));
  await showPeers();
}

start().catch((err) => {
  $('signed-out').hidden = false;
  say(err.message, false);
});
