// The file application's page: every call is the REST interface's, with the
// user's own token (kept in this tab's sessionStorage only). What a file
// holds is shown as text, never as markup.
// (It runs in the browser: these are the browser's.)
/* global document, sessionStorage, FormData */
'use strict';

const $ = (id) => document.getElementById(id);
let current = null;

function status(text, ok) {
  const line = $('status');
  line.textContent = text;
  line.className = ok ? 'ok' : 'error';
}

function token() {
  return sessionStorage.getItem('token') || '';
}

async function call(method, path, body) {
  const headers = { authorization: `Bearer ${token()}` };
  let payload = body;
  if (body && !(body instanceof FormData)) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const response = await fetch(path, { method, headers, body: payload });
  if ((response.headers.get('content-type') || '').includes('json')) {
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.data || answer.message || (answer.error && answer.error.message) || `${response.status}`);
    return answer;
  }
  if (!response.ok) throw new Error(`${response.status}`);
  return response;
}

function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = text;
  row.appendChild(td);
  return td;
}

function button(parent, label, onClick) {
  const b = document.createElement('button');
  b.textContent = label;
  b.addEventListener('click', onClick);
  parent.appendChild(b);
  return b;
}

async function run(label, action) {
  try {
    await action();
    status(label, true);
  } catch (err) {
    status(`${label}: ${err.message}`, false);
  }
}

const path = (key, rest = '') => `/api/v1/files/${encodeURIComponent(key)}${rest}`;

async function refresh() {
  const { data } = await call('GET', '/api/v1/files');
  const body = $('files');
  body.replaceChildren();
  for (const file of data) {
    const row = document.createElement('tr');
    cell(row, file.fileName);
    cell(row, String(file.numVersions));
    cell(row, file.owner);
    button(cell(row, ''), 'Open', () => run(`Opened ${file.fileName}`, () => open(file.fileKey)));
    body.appendChild(row);
  }
}

function show(record) {
  current = record;
  $('file').hidden = false;
  $('file-name').textContent = record.fileName;
  $('file-description').textContent = record.fileDescription;
  $('file-owner').textContent = record.owner;
  const versions = $('versions');
  versions.replaceChildren();
  for (const v of record.versions) {
    const row = document.createElement('tr');
    cell(row, String(v.version));
    cell(row, v.comments);
    cell(row, v.uploadedBy);
    cell(row, v.attestations.map((a) => a.attestor).join(', '));
    button(cell(row, ''), 'Download', () => run(`Downloaded version ${v.version}`, () => download(v.version)));
    versions.appendChild(row);
  }
  const members = $('members');
  members.replaceChildren();
  for (const m of record.members) {
    const item = document.createElement('li');
    const code = document.createElement('code');
    code.textContent = m;
    item.appendChild(code);
    if (m === record.owner) item.append(' (owner)');
    else button(item, 'Remove', () => run(`Removed ${m}`, async () => show((await call('DELETE', path(record.fileKey, '/members'), { member: m })).data)));
    members.appendChild(item);
  }
  const audit = $('audit');
  audit.replaceChildren();
  for (const e of record.auditLog) {
    const item = document.createElement('li');
    const who = e.member || e.uploadedBy || e.attestor || `${e.from} → ${e.to}`;
    item.textContent = `${new Date(e.timestamp * 1000).toISOString()} ${e.action}${e.version ? ` ${e.version}` : ''} ${who}`;
    audit.appendChild(item);
  }
}

async function open(key) {
  show((await call('GET', path(key))).data);
}

async function download(version) {
  const response = await call('GET', path(current.fileKey, `/versions/${version}`));
  const name = /filename="([^"]*)"/.exec(response.headers.get('content-disposition') || '');
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await response.blob());
  link.download = name ? name[1] : `file_${version}`;
  document.body.appendChild(link);
  link.click();
  link.remove();
}

function form(fileInput, fields) {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  const file = fileInput.files[0];
  if (file) data.append('file', file);
  return data;
}

$('use-token').addEventListener('click', () =>
  run('Signed in', async () => {
    sessionStorage.setItem('token', $('token').value.trim());
    $('token').value = '';
    const key = await call('GET', '/platform/v2.3/key').catch(() => null);
    $('who').textContent = key ? `your address: ${key.address}` : 'no key yet: POST /platform/v2.3/key';
    await refresh();
  }),
);
$('refresh').addEventListener('click', () => run('Refreshed', refresh));
$('upload-button').addEventListener('click', () =>
  run('Uploaded', async () => {
    show((await call('POST', '/api/v1/files', form($('upload-file'), { fileDescription: $('upload-description').value, comments: $('upload-comments').value }))).data);
    await refresh();
  }),
);
$('version-button').addEventListener('click', () =>
  run('Version added', async () => show((await call('POST', path(current.fileKey, '/versions'), form($('version-file'), { comments: $('version-comments').value }))).data)),
);
$('attest-button').addEventListener('click', () =>
  run('Attested', async () => show((await call('POST', path(current.fileKey, `/versions/${encodeURIComponent($('attest-version').value)}/attest`), form($('attest-file'), {}))).data)),
);
$('share-button').addEventListener('click', () => run('Shared', async () => show((await call('POST', path(current.fileKey, '/members'), { member: $('member-address').value.trim() })).data)));
$('transfer-button').addEventListener('click', () =>
  run('Ownership transferred', async () => show((await call('POST', path(current.fileKey, '/transfer'), { member: $('member-address').value.trim() })).data)),
);
