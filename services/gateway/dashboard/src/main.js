// The dashboard's script: sign-in by authorization code with PKCE (S256)
// against the identity provider the discovery document names, then the
// overview — the height, transactions per second and block time, services'
// health from /ready, and the latest transactions — kept current by the live
// events stream (GET /platform/v2.3/events with a ticket: EventSource cannot
// send the token), never by polling. The token stays in this tab's
// sessionStorage.
// (It runs in the browser: these are the browser's.)
/* global window, document, location, history, sessionStorage, crypto, btoa, atob, URLSearchParams, EventSource */
const $ = (id) => document.getElementById(id);
const LATEST = 20;
const redirectUri = `${location.origin}/dashboard`;

const b64url = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const random = (n) => b64url(crypto.getRandomValues(new Uint8Array(n)));

function say(text, ok = true) {
  $('status').textContent = text;
  $('status').className = ok ? 'ok' : 'bad';
}

async function json(url, options) {
  const response = await fetch(url, options);
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error(body?.error?.message ?? body?.error_description ?? `${url}: ${response.status}`);
  return body;
}

async function signIn(config, discovery) {
  const verifier = random(32);
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const state = random(16);
  sessionStorage.setItem('dashboard.pkce', JSON.stringify({ verifier, state }));
  const url = new URL(discovery.authorization_endpoint);
  url.search = new URLSearchParams({ response_type: 'code', client_id: config.clientId, redirect_uri: redirectUri, scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256', state }).toString();
  location.assign(url.toString());
}

/** Back from the provider with a code: exchanged for the token, and the code taken out of the address. */
async function finishSignIn(config, discovery, params) {
  const pending = JSON.parse(sessionStorage.getItem('dashboard.pkce') ?? 'null');
  sessionStorage.removeItem('dashboard.pkce');
  history.replaceState(null, '', '/dashboard');
  if (params.get('error')) throw new Error(`the sign-in was refused: ${params.get('error_description') ?? params.get('error')}`);
  if (!pending || pending.state !== params.get('state')) throw new Error('the sign-in answer does not belong to this tab; sign in again');
  const body = new URLSearchParams({ grant_type: 'authorization_code', code: params.get('code'), redirect_uri: redirectUri, client_id: config.clientId, code_verifier: pending.verifier });
  const answer = await json(discovery.token_endpoint, { method: 'POST', body });
  sessionStorage.setItem('dashboard.token', answer.access_token);
}

function usernameOf(token) {
  try {
    const claims = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    return claims.preferred_username ?? claims.sub ?? '';
  } catch {
    return '';
  }
}

async function showHealth() {
  const answer = await fetch('/ready').then((r) => r.json());
  const list = $('health');
  list.replaceChildren(
    ...Object.entries(answer.checks ?? {}).map(([name, ok]) => {
      const item = document.createElement('li');
      item.textContent = `${name}: ${ok ? 'ok' : 'failing'}`;
      item.className = ok ? 'ok' : 'bad';
      return item;
    }),
  );
  const main = answer.chains?.main;
  if (main && typeof main.height === 'number') setHeight(main.height);
}

let height = -1;
function setHeight(value) {
  if (value <= height) return;
  height = value;
  $('height').textContent = String(value);
}

/** blocks of the main chain seen live: [seconds of the block, transactions] */
const recent = [];
function noteBlock(block) {
  if (block.chainId !== null) return;
  setHeight(block.number);
  recent.push([block.timestamp, block.transactions]);
  while (recent.length > 0 && recent[0][0] < block.timestamp - 60) recent.shift();
  const span = Math.max(1, block.timestamp - recent[0][0]);
  $('rate').textContent = (recent.reduce((n, [, txs]) => n + txs, 0) / span).toFixed(1);
  if (recent.length > 1) $('block-time').textContent = `${(span / (recent.length - 1)).toFixed(2)} s`;
}

function cell(text, className = '') {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function noteTransaction(tx) {
  const row = document.createElement('tr');
  const link = document.createElement('a');
  link.href = `#/tx/${tx.hash}`;
  link.textContent = tx.hash;
  const hash = cell('', 'hash');
  hash.append(link);
  row.append(hash, cell(tx.status, tx.status === 'Success' ? 'ok' : 'bad'), cell(String(tx.blockNumber)), cell(tx.chainId ?? 'main', tx.chainId ? 'hash' : ''));
  const body = $('transactions');
  body.prepend(row);
  while (body.rows.length > LATEST) body.deleteRow(body.rows.length - 1);
}

/** The live stream, opened again (with a new ticket, from the last id) whenever it ends. */
async function follow(token, lastEventId = '') {
  const { ticket } = await json('/platform/v2.3/events/ticket', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  const query = new URLSearchParams({ ticket, kinds: 'block,tx' });
  if (lastEventId) query.set('lastEventId', lastEventId);
  const events = new EventSource(`/platform/v2.3/events?${query}`);
  let last = lastEventId;
  events.addEventListener('block', (e) => {
    last = e.lastEventId;
    noteBlock(JSON.parse(e.data));
  });
  events.addEventListener('tx', (e) => {
    last = e.lastEventId;
    noteTransaction(JSON.parse(e.data));
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

// --- pages (#/…): each read from the REST interface with the user's token when opened

const PAGES = ['overview', 'transaction', 'contracts', 'chains', 'key'];
let token = null;
const authorized = (url) => json(url, { headers: { authorization: `Bearer ${token}` } });

async function showTransaction(hash) {
  const result = await authorized(`/bloc/v2.2/transactions/${encodeURIComponent(hash)}/result`);
  $('tx-hash').textContent = result.hash;
  $('tx-status').textContent = result.status;
  $('tx-message').textContent = result.txResult?.message ?? '';
  $('tx-block').textContent = result.txResult?.blockHash ?? '';
  $('tx-chain').textContent = result.txResult?.chainId ?? 'main';
  $('tx-diff').textContent = JSON.stringify(JSON.parse(result.txResult?.stateDiff || '{}'), null, 2);
  $('tx-result').textContent = JSON.stringify(result.data, null, 2);
}

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

async function showChains() {
  const chains = await authorized('/platform-api/eth/v1.2/chain');
  $('chains').replaceChildren(...chains.map((c) => {
    const row = document.createElement('tr');
    row.append(cell(c.id, 'hash'), cell(c.info.label), cell(c.info.members.map((m) => [m.orgName, m.orgUnit, m.commonName].filter(Boolean).join('/')).join(', ')));
    return row;
  }));
}

async function showKey() {
  const key = await authorized('/platform/v2.3/key');
  $('key-address').textContent = key.address;
  const [account] = await authorized(`/platform-api/eth/v1.2/account?address=${key.address}`);
  $('key-balance').textContent = account?.balance ?? '0';
  $('key-nonce').textContent = String(account?.nonce ?? 0);
}

async function route() {
  const [, name = '', arg = ''] = location.hash.split('/');
  const page = { tx: 'transaction', contracts: 'contracts', chains: 'chains', key: 'key' }[name] ?? 'overview';
  for (const p of PAGES) $(`page-${p}`).hidden = p !== page;
  for (const a of document.querySelectorAll('nav a')) {
    if (a.getAttribute('href') === `#/${name}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  try {
    if (page === 'transaction') await showTransaction(decodeURIComponent(arg));
    if (page === 'chains') await showChains();
    if (page === 'key') await showKey();
  } catch (err) {
    say(err.message, false);
  }
}

async function start() {
  const config = await json('/dashboard/config.json');
  const discovery = await json(config.discoveryUrl);
  $('sign-in').addEventListener('click', () => signIn(config, discovery).catch((err) => say(err.message, false)));
  $('sign-out').addEventListener('click', () => {
    sessionStorage.removeItem('dashboard.token');
    location.reload();
  });
  const params = new URLSearchParams(location.search);
  if (params.has('code') || params.has('error')) await finishSignIn(config, discovery, params);
  token = sessionStorage.getItem('dashboard.token');
  if (!token) {
    $('signed-out').hidden = false;
    say('Signed out');
    return;
  }
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
  await follow(token);
}

start().catch((err) => {
  $('signed-out').hidden = false;
  say(err.message, false);
});
