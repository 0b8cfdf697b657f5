// The pages read from the REST interface when opened: a transaction, an
// account, a contract, the chains and one chain, the user's own key. Lists
// are paged on the server (cirrus's limit/offset with an exact count, the
// chains' limit/offset).
import { authorized, sendAuthorized, readEvents, search, seqOf, IDS_PER_BLOCK } from './api.js';
import { h, link, dl, table, section, pre, pager } from './dom.js';
import { blockHref, txPosition } from './blocks.js';

const ROWS = 10;
const accountHref = (address, chainId) => `#/account/${address}${chainId ? `/${chainId}` : ''}`;
const contractHref = (name, address, chainId) => `#/contract/${encodeURIComponent(name)}/${address}${chainId ? `/${chainId}` : ''}`;
const txLink = (hash) => link(`#/tx/${hash}`, hash, 'hash');

/** JSON text as its value, other text as it is */
function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `#/tx/<hash>[/<position>]`: status, result fields, state diff, result data and, when its block's position is known, its block, sender and events. */
export async function transactionPage(view, hash, position) {
  const result = await authorized(`/bloc/v2.2/transactions/${encodeURIComponent(hash)}/result`);
  const r = result.txResult ?? {};
  const chainId = r.chainId ?? null;
  const upload = result.data?.tag === 'Upload' ? result.data.contents : null;
  const seq = position ? Number(position) : txPosition(hash);
  let here = null;
  let events = [];
  if (seq) {
    // the block's messages up to this transaction's last event (the next transaction, or the next block)
    let reached = false;
    const past = (m) => {
      if (seqOf(m.id) > seq || (reached && m.event === 'tx')) return true;
      if (m.event === 'tx' && m.data.hash === result.hash) reached = true;
      return false;
    };
    const { messages } = await readEvents({ after: seq * IDS_PER_BLOCK - 1, kinds: 'tx,event', chainid: chainId ?? 'main', stop: past });
    here = messages.find((m) => m.event === 'tx' && m.data.hash === result.hash)?.data ?? null;
    events = messages.filter((m) => m.event === 'event' && m.data.transactionHash === result.hash).map((m) => m.data);
  }
  const created = String(r.contractsCreated ?? '').split(',').filter(Boolean);
  view.replaceChildren(
    dl(
      [
        ['Hash', h('span', { id: 'tx-hash', className: 'hash' }, result.hash)],
        ['Status', h('span', { id: 'tx-status', className: result.status === 'Success' ? 'ok' : result.status === 'Failure' ? 'bad' : '' }, result.status)],
        ['Message', h('span', { id: 'tx-message' }, r.message ?? '')],
        ['Block', here ? link(blockHref(here.blockNumber, chainId), `${here.blockNumber} (${r.blockHash})`) : h('span', { className: 'hash' }, r.blockHash ?? '')],
        ['Chain', chainId ?? 'main'],
        ['From', here ? link(accountHref(here.from, chainId), here.from, 'hash') : ''],
        ['Kind', r.kind ?? ''],
        ['Gas used', r.gasUsed ? String(BigInt(`0x${r.gasUsed}`)) : ''],
        ['Contracts created', created.length ? h('span', {}, created.map((a, i) => [i ? ', ' : '', link(accountHref(a, chainId), a, 'hash')])) : 'none'],
        ['Contracts deleted', r.contractsDeleted || 'none'],
        ...(upload ? [['Contract', link(contractHref(upload.name, upload.address, chainId), `${upload.name} at ${upload.address}`)]] : []),
      ],
      'tx-fields',
    ),
    section('State diff', pre(parsed(r.stateDiff || '{}'), 'tx-diff')),
    section(
      'Events',
      seq
        ? table('Events the transaction emitted', ['Event', 'Contract', 'Arguments'], events.map((e) => [e.name, link(contractHref(e.contractName, e.address, chainId), `${e.contractName} ${e.address}`), JSON.stringify(e.args)]), 'tx-events')
        : h('p', {}, 'Open the transaction from a block or a list to see its block, sender and events.'),
    ),
    section('Result data', pre(upload ? { ...result.data, contents: { ...upload, src: '(on the contract page)', xabi: '(on the contract page)' } } : result.data, 'tx-result')),
  );
}

/** The registered certificate of an address (the Certificate table of the registry), or null. */
async function certificateOf(address) {
  const { rows } = await search('Certificate', `userAddress=eq.${address}&order=block_number.desc&limit=1&select=commonName,organization,organizationalUnit,country,serialNumber,notBefore,expirationDate,isValid,isCa,address,certificateString`);
  return rows[0] ?? null;
}

const date = (seconds) => (seconds ? new Date(Number(seconds) * 1000).toISOString().slice(0, 10) : '');

function certificateSection(cert) {
  if (!cert) return section('Certificate', h('p', { id: 'certificate-none' }, 'No certificate is registered for this address.'));
  return section(
    'Certificate',
    dl(
      [
        ['Common name', cert.commonName],
        ['Organization', cert.organization],
        ['Unit', cert.organizationalUnit],
        ['Country', cert.country],
        ['Serial number', cert.serialNumber],
        ['Valid', `${cert.isValid ? 'yes' : 'no (revoked)'}, ${date(cert.notBefore)} to ${date(cert.expirationDate)}`],
        ['Certificate contract', link(contractHref('Certificate', cert.address), cert.address, 'hash')],
      ],
      'certificate',
    ),
    h('details', {}, h('summary', {}, 'PEM'), pre(cert.certificateString)),
  );
}

async function accountSections(address, chainId) {
  const [account] = await authorized(`/platform-api/eth/v1.2/account?address=${address}${chainId ? `&chainid=${chainId}` : ''}`);
  const cert = await certificateOf(address);
  const fields = account
    ? [
        ['Balance', h('span', { id: 'account-balance' }, account.balance)],
        ['Nonce', h('span', { id: 'account-nonce' }, String(account.nonce))],
        ['Code hash', h('span', { className: 'hash' }, account.codeHash)],
        ['Last changed in block', account.latestBlockNum === null ? '' : link(blockHref(account.latestBlockNum, chainId), String(account.latestBlockNum))],
        ...(account.contractName ? [['Contract', link(contractHref(account.contractName, address, chainId), account.contractName)]] : []),
      ]
    : [['Balance', h('span', { id: 'account-balance' }, '0')], ['Nonce', h('span', { id: 'account-nonce' }, '0')]];
  return [dl([['Address', h('span', { className: 'hash', id: 'account-address' }, address)], ['Chain', chainId || 'main'], ...fields], 'account'), certificateSection(cert)];
}

/** `#/account/<address>[/<chainId>]`: balance, nonce, code and certificate. */
export async function accountPage(view, address, chainId) {
  view.replaceChildren(...(await accountSections(address.toLowerCase().replace(/^0x/, ''), chainId)));
}

/** `#/key`: the user's own key, its account and its certificate. */
export async function keyPage(view) {
  let key;
  try {
    key = await authorized('/platform/v2.3/key');
  } catch (err) {
    if (err.code !== 'USER_NOT_FOUND') throw err;
    const create = async () => {
      button.disabled = true;
      try {
        await sendAuthorized('POST', '/platform/v2.3/key');
        // the page again, now with the key
        window.dispatchEvent(new Event('hashchange'));
      } catch (failed) {
        button.after(h('p', { className: 'bad', role: 'alert' }, failed.message));
        button.disabled = false;
      }
    };
    const button = h('button', { type: 'button', id: 'create-key', onclick: () => void create() }, 'Create my key');
    // the node's vault makes the key pair and, where the node enrols, registers its certificate
    view.replaceChildren(h('p', {}, 'You have no key on this node yet.'), button);
    return;
  }
  view.replaceChildren(dl([['Public key', h('span', { className: 'hash', id: 'key-public' }, key.pubkey ?? key.publicKey ?? '')]]), ...(await accountSections(key.address)));
}

/** A paged cirrus table section: `query` without limit/offset; `cells` renders a row's cells. */
function pagedRows(title, tableName, query, headers, cells, id) {
  const holder = h('div', {}, h('p', {}, 'Loading…'));
  const show = async (offset) => {
    try {
      const { rows, total } = await search(tableName, `${query}&limit=${ROWS}&offset=${offset}`);
      holder.replaceChildren(table(title, headers, rows.map(cells), id), pager(title, offset, ROWS, rows.length, total, show));
    } catch (err) {
      holder.replaceChildren(h('p', { id }, err.status === 404 ? 'None.' : err.message));
    }
  };
  void show(0);
  return section(title, holder);
}

const INHERITED = new Set(['address', 'chainId', 'record_id', 'block_hash', 'block_timestamp', 'block_number', 'transaction_hash', 'transaction_sender']);
const variablesOf = (row) => Object.fromEntries(Object.entries(row).filter(([k]) => !INHERITED.has(k)));
const EVENT_COLUMNS = new Set(['id', 'address', 'chainId', 'transaction_hash', 'block_number', 'block_timestamp']);
const argumentsOf = (row) => Object.fromEntries(Object.entries(row).filter(([k]) => !EVENT_COLUMNS.has(k)));

/** `#/contract/<table>/<address>[/<chainId>]`: current state, source and xabi (from the upload), history and events, each paged. */
export async function contractPage(view, name, address, chainId) {
  const where = `address=eq.${address}${chainId ? `&chainId=eq.${chainId}` : ''}`;
  const { rows } = await search(name, `${where}&limit=1`);
  const state = rows[0];
  if (!state) throw new Error(`no contract ${name} at ${address} that you may see`);
  // the creation is the oldest history row; the upload's result holds the source and the xabi
  const first = (await search(`history@${name}`, `${where}&order=block_number.asc&limit=1&select=transaction_hash`)).rows[0];
  // (a result the user may not read — another's transaction on a chain it only sends to — leaves the source out)
  const creation = first ? await authorized(`/bloc/v2.2/transactions/${first.transaction_hash}/result`).catch(() => null) : null;
  const upload = creation?.data?.tag === 'Upload' ? creation.data.contents : null;
  const xabi = upload && upload.address === address ? upload.xabi : null;
  const historyCells = (row) => [link(blockHref(row.block_number, chainId), String(row.block_number)), txLink(row.transaction_hash), link(accountHref(row.transaction_sender, chainId), row.transaction_sender, 'hash'), JSON.stringify(variablesOf(row))];
  view.replaceChildren(
    dl(
      [
        ['Table', name],
        ['Address', link(accountHref(address, chainId), address, 'hash')],
        ['Chain', chainId || 'main'],
        ['Last changed', h('span', {}, 'block ', link(blockHref(state.block_number, chainId), String(state.block_number)), ' by ', txLink(state.transaction_hash))],
        ['Created by', first ? txLink(first.transaction_hash) : ''],
        ['Query', link(`#/contracts/${encodeURIComponent(name)}`, `cirrus: ${name}`)],
      ],
      'contract-fields',
    ),
    section('Current state', pre(variablesOf(state), 'contract-state')),
    section('Source', upload ? pre(upload.src, 'contract-source') : h('p', {}, creation ? "Created by another contract's code in the transaction above: the source is that contract's upload." : 'The creating transaction is not visible to you.')),
    section('Xabi', xabi ? pre(xabi, 'contract-xabi') : h('p', {}, upload ? `Created with new by ${upload.name}: the source above defines it.` : '')),
    pagedRows('History', `history@${name}`, where, ['Block', 'Transaction', 'Sender', 'Variables'], historyCells, 'contract-history'),
    ...Object.keys(xabi?.events ?? {}).map((event) =>
      pagedRows(
        `Events ${event}`,
        `${name}.${event}`,
        `${where}&order=id.desc`,
        ['Id', 'Block', 'Transaction', 'Arguments'],
        (row) => [String(row.id), link(blockHref(row.block_number, chainId), String(row.block_number)), txLink(row.transaction_hash), JSON.stringify(argumentsOf(row))],
        `contract-events-${event}`,
      ),
    ),
  );
}

const member = (m) => [m.orgName, m.orgUnit, m.commonName].filter(Boolean).join(' / ');

/** `#/chains[/<offset>]`: the private chains the user may see, paged on the server. */
export async function chainsPage(view, offset = 0) {
  const start = Number(offset) || 0;
  const chains = await authorized(`/bloc/v2.2/chain?limit=${ROWS}&offset=${start}`);
  view.replaceChildren(
    table('Private chains you are a member of', ['ID', 'Label', 'Members'], chains.map((c) => [link(`#/chain/${c.id}`, c.id, 'hash'), c.info.label ?? '', (c.info.members ?? []).map(member).join(', ')]), 'chains'),
    pager('Chains', start, ROWS, chains.length, null, (o) => (location.hash = `#/chains/${o}`)),
  );
}

const GOVERNANCE = ['OrgAdded', 'OrgUnitAdded', 'CommonNameAdded', 'OrganizationAdded', 'OrgRemoved', 'OrgUnitRemoved', 'CommonNameRemoved', 'OrganizationRemoved'];

/** `#/chain/<id>`: a private chain's record, members and governance events (404 to a non-member, as to a chain that does not exist). */
export async function chainPage(view, id) {
  let chain;
  try {
    chain = await authorized(`/bloc/v2.2/chain/${id}`);
  } catch (err) {
    if (err.status !== 404) throw err;
    view.replaceChildren(h('p', { id: 'chain-missing' }, `No chain ${id} that you may see.`));
    return;
  }
  const governance = chain.info.codeInfo?.[0]?.name;
  const events = [];
  for (const name of governance ? GOVERNANCE : []) {
    try {
      const { rows } = await search(`${governance}.${name}`, `chainId=eq.${id}&order=id.desc&limit=${ROWS}`);
      events.push(...rows.map((row) => ({ name, row })));
    } catch (err) {
      if (err.status !== 404) throw err;
    }
  }
  events.sort((a, b) => b.row.block_number - a.row.block_number || b.row.id - a.row.id);
  view.replaceChildren(
    dl(
      [
        ['ID', h('span', { className: 'hash', id: 'chain-id' }, chain.id)],
        ['Label', h('span', { id: 'chain-label' }, chain.info.label ?? '')],
        ['Creator', chain.info.creator ?? ''],
        ['Governance contract', governance ?? ''],
        ['Only members send', chain.info.membersOnly ? 'yes' : 'no'],
        ['Blocks', link(`#/block/0/${chain.id}`, 'its genesis block')],
      ],
      'chain-fields',
    ),
    section('Members', table('Members', ['Organization', 'Unit', 'Common name', 'Access'], (chain.info.members ?? []).map((m) => [m.orgName, m.orgUnit ?? '', m.commonName ?? '', m.access === false ? 'no' : 'yes']), 'chain-members')),
    section(
      'Governance events',
      table(
        `Governance events (the latest ${ROWS} of each kind)`,
        ['Event', 'Block', 'Transaction', 'Arguments'],
        events.map(({ name, row }) => [name, link(blockHref(row.block_number, id), String(row.block_number)), txLink(row.transaction_hash), JSON.stringify(argumentsOf(row))]),
        'chain-governance',
      ),
    ),
  );
}
