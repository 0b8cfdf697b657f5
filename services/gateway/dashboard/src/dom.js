// Small DOM helpers: every page is built from elements (textContent, never
// HTML strings), so nothing a chain holds can run as markup.
export const $ = (id) => document.getElementById(id);

/** An element: `h('a', {href: '#/'}, 'text', child)`; attributes set as properties when the element has one (className, hidden, …). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name in element && name !== 'list') element[name] = value;
    else element.setAttribute(name, String(value));
  }
  element.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false).map((c) => (typeof c === 'object' ? c : String(c))));
  return element;
}

export const link = (href, text, className) => h('a', { href, className }, text);

export function say(text, ok = true) {
  $('status').textContent = text;
  $('status').className = ok ? 'ok' : 'bad';
}

/** A description list: [term, value] pairs; a value may be an element. */
export function dl(pairs, id) {
  return h('dl', { className: 'fields', id }, pairs.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value ?? '')]));
}

/** A table with a caption (its accessible name; shown only to screen readers, as a heading above names it), column headers and rows of cells (text or elements). */
export function table(caption, headers, rows, id) {
  return h(
    'table',
    { id },
    h('caption', { className: 'sr-only' }, caption),
    h('thead', {}, h('tr', {}, headers.map((name) => h('th', { scope: 'col' }, name)))),
    h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((c) => h('td', { className: typeof c === 'string' && /^[0-9a-f]{40,}$/.test(c) ? 'hash' : '' }, c))))),
  );
}

export const section = (title, ...children) => h('section', { 'aria-label': title }, h('h3', {}, title), ...children);

export const pre = (value, id) => h('pre', { id, tabIndex: 0 }, typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** Previous / next buttons for a page of `limit` rows at `offset` (of `total` when known). */
export function pager(label, offset, limit, count, total, go) {
  const shown = count === 0 ? 'none' : `${offset + 1}–${offset + count}${total === null ? '' : ` of ${total}`}`;
  return h(
    'p',
    { className: 'pager' },
    h('button', { type: 'button', disabled: offset === 0, onclick: () => go(Math.max(0, offset - limit)), 'aria-label': `${label}: previous page` }, '← Previous'),
    h('span', {}, ` ${label}: ${shown} `),
    h('button', { type: 'button', disabled: total === null ? count < limit : offset + count >= total, onclick: () => go(offset + limit), 'aria-label': `${label}: next page` }, 'Next →'),
  );
}
