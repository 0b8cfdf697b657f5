// The REST interface with the signed-in user's token, and bounded reads of
// the events stream: `GET /platform/v2.3/events?lastEventId=` replays a range
// of the node's record from any position (the start of the range is found on
// the server), which is how the blocks, a block and a transaction's events
// are read — no endpoint lists blocks.
let token = null;
export const setToken = (value) => (token = value);
export const getToken = () => token;

/** An event's id is its block's sequence on the node's EXEC stream × this + its position in the block. */
export const IDS_PER_BLOCK = 1_000_000;
export const seqOf = (id) => Math.floor(Number(id) / IDS_PER_BLOCK);

export async function json(url, options) {
  const response = await fetch(url, options);
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const err = new Error(body?.error?.message ?? body?.error_description ?? `${url}: ${response.status}`);
    err.status = response.status;
    err.code = body?.error?.code;
    throw err;
  }
  return { body, headers: response.headers };
}

export const authorized = async (url, headers = {}) => (await json(url, { headers: { ...headers, authorization: `Bearer ${token}` } })).body;

export const sendAuthorized = async (method, url, body) =>
  (await json(url, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) })).body;

/** Rows of a cirrus table and, with `Prefer: count=exact`, the total from Content-Range. */
export async function search(table, query) {
  const { body, headers } = await json(`/cirrus/search/${encodeURIComponent(table)}?${query}`, { headers: { authorization: `Bearer ${token}`, prefer: 'count=exact' } });
  const total = Number((headers.get('content-range') ?? '').split('/')[1]);
  return { rows: body, total: Number.isFinite(total) ? total : null };
}

function parse(text) {
  const message = {};
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) message.comment = line.slice(1).trim();
    else if (line.startsWith('id:')) message.id = Number(line.slice(3).trim());
    else if (line.startsWith('event:')) message.event = line.slice(6).trim();
    else if (line.startsWith('data:')) message.data = JSON.parse(line.slice(5).trim());
  }
  return message;
}

/**
 * Messages of the events stream after id `after`, until `stop(message)` is
 * true (that message left out), `limit` messages are read, or the replay is
 * over (the stream's `: live` comment). `{messages, live}`.
 */
export async function readEvents({ after, kinds, chainid, contract, limit = Infinity, stop = () => false }) {
  const query = new URLSearchParams({ lastEventId: String(Math.max(0, after)), kinds });
  if (chainid) query.set('chainid', chainid);
  if (contract) query.set('contract', contract);
  const abort = new AbortController();
  const response = await fetch(`/platform/v2.3/events?${query}`, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    throw new Error(body?.error?.message ?? `the events: ${response.status}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const messages = [];
  let buffer = '';
  let live = false;
  try {
    read: while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const message = parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (message.comment === 'live') {
          live = true;
          break read;
        }
        if (message.id === undefined || !message.event) continue;
        if (stop(message)) break read;
        messages.push(message);
        if (messages.length >= limit) break read;
      }
    }
  } finally {
    abort.abort();
  }
  return { messages, live };
}
