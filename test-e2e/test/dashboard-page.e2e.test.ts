// The dashboard (`/dashboard`) in headless Chromium, as a person uses it: it
// offers "Sign in", which goes to the node's development identity provider
// (authorization code + PKCE S256, from the discovery document), and comes
// back signed in; then every page, with what other users do by REST showing
// up live: the overview (height, charts, health, peers, the latest
// transactions), the user's key created from the page with its certificate,
// the blocks list gaining a block, that block, its transaction with its
// events, the sender's account, the contract (source, xabi, state, history,
// events), the cirrus query box, and a private chain seen as nothing by a
// non-member and with its members and governance events once the user's
// organization is added. One node, one browser. A screenshot of each page is
// saved in $DASHBOARD_SCREENSHOTS (default .tmp/dashboard-screenshots, which
// git ignores).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { AUTO_APPROVE_SOURCE } from '@platform/chains';
import { CHROMIUM, ensureChromium } from './chromium.js';
import { api, devToken, startTestNode, type TestNode } from './harness.js';

const NODE_START_MS = 300_000;
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS ?? fileURLToPath(new URL('../../.tmp/dashboard-screenshots', import.meta.url));
const GOVERNANCE = '0000000000000000000000000000000000000100';

const COUNTER = 'contract Counter { uint public count; event Bumped(uint count); function bump() { count += 1; emit Bumped(count); } }';

describe('the dashboard', () => {
  let node: TestNode;
  let browser: Browser;
  let page: Page;
  let dana: string;
  let counter: { hash: string; address: string };

  beforeAll(async () => {
    ensureChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
    node = await startTestNode();
    dana = await devToken(node, 'dana', 'Acme');
    expect((await api(node, 'POST', '/platform/v2.3/key', dana)).status).toBe(200);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await (await browser.newContext({ viewport: { width: 1366, height: 768 } })).newPage();
  }, NODE_START_MS);
  afterAll(async () => {
    await browser?.close();
    await node?.destroy();
  });

  const text = (selector: string) => page.locator(selector).first().textContent({ timeout: 30_000 });
  const status = (expected: string) =>
    page.waitForFunction((want) => (globalThis as any).document.getElementById('status')?.textContent === want, expected, { timeout: 30_000 }).catch(async (err: Error) => {
      throw new Error(`${err.message}; the status line says ${JSON.stringify(await page.textContent('#status'))}`);
    });
  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const send = async (token: string, txs: unknown[], query = '') => {
    const res = await api(node, 'POST', `/platform/v2.3/transaction?resolve=true${query}`, token, { txs });
    expect(res.status).toBe(200);
    expect(res.body[0].status).toBe('Success');
    return res.body[0];
  };
  const bump = () => send(dana, [{ type: 'FUNCTION', payload: { contractAddress: counter.address, method: 'bump', args: {}, metadata: { VM: 'SolidVM' } } }]);
  /** polled: cirrus and membership follow execution */
  const eventually = async (read: () => Promise<boolean>) => {
    for (let i = 0; i < 300 && !(await read()); i++) await new Promise((r) => setTimeout(r, 100));
  };

  test('offers to sign in, signs in at the identity provider with PKCE, and comes back signed in', async () => {
    const answer = await page.goto(`${node.gatewayUrl}/dashboard`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
    await status('Signed out');
    await shot('signed-out');
    const [authorize] = await Promise.all([page.waitForRequest((r) => r.url().includes('code_challenge=')), page.click('#sign-in')]);
    const asked = new URL(authorize.url());
    expect([asked.searchParams.get('code_challenge_method'), asked.searchParams.get('client_id'), asked.searchParams.get('response_type')]).toEqual(['S256', 'platform-dashboard', 'code']);
    await page.waitForSelector('input[name="login"]');
    await page.fill('input[name="login"]', 'erin');
    await page.fill('input[name="password"]', 'anything');
    await page.click('button[type="submit"]');
    await status('Live');
    expect(await page.textContent('#who')).toBe('erin');
    // the code is gone from the address once exchanged
    expect(page.url()).toBe(`${node.gatewayUrl}/dashboard`);
  });

  test('the overview shows the height, health and peers, and each new transaction live with the height after it', async () => {
    await page.waitForFunction(() => /^\d+$/.test((globalThis as any).document.getElementById('height')?.textContent ?? ''));
    const before = Number(await page.textContent('#height'));
    expect(await page.locator('#health li').allTextContents()).toContain('chainsProgressing: ok');
    await page.locator('#peers li').first().waitFor();
    expect(await page.locator('#peers li').allTextContents()).toEqual(['None: this node is a network of its own.']);
    const upload = await send(dana, [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, args: {}, metadata: { VM: 'SolidVM' } } }]);
    counter = { hash: upload.hash, address: upload.data.contents.address };
    const row = page.locator('#transactions tr', { hasText: upload.hash });
    await row.waitFor({ timeout: 30_000 });
    expect(await row.locator('td').allTextContents()).toEqual([upload.hash, 'Success', expect.stringMatching(/^\d+$/), 'main']);
    const blockNumber = Number(await row.locator('td').nth(2).textContent());
    await page.waitForFunction((n) => Number((globalThis as any).document.getElementById('height')?.textContent) >= n, blockNumber);
    expect(blockNumber).toBeGreaterThan(before);
    // the charts have a bar per block after the first they know
    await page.locator('#block-time-chart rect').first().waitFor();
    expect(await page.getAttribute('#rate-chart', 'aria-label')).toMatch(/^Transactions per second of the last \d+ blocks/);
    // a reload starts from the node's record: the latest transactions and the charts are there before anything new happens
    await page.reload();
    await status('Live');
    expect(await page.locator('#transactions tr', { hasText: upload.hash }).count()).toBe(1);
    expect(await page.locator('#block-time-chart rect').count()).toBeGreaterThan(0);
    await shot('overview');
  });

  test("creates the user's key from the page, which then shows the address, the account and the certificate", async () => {
    await page.getByRole('link', { name: 'My key' }).click();
    await page.getByRole('button', { name: 'Create my key' }).click();
    await page.waitForFunction(() => /^[0-9a-f]{40}$/.test((globalThis as any).document.getElementById('account-address')?.textContent ?? ''), undefined, { timeout: 60_000 });
    const key = await api(node, 'GET', '/platform/v2.3/key', await devToken(node, 'erin'));
    expect(await text('#account-address')).toBe(key.body.address);
    expect(await text('#account-nonce')).toMatch(/^\d+$/);
    // enrolled with the key: the registry's certificate names the user
    expect(await page.locator('#certificate dd').first().textContent()).toBe('erin');
    await shot('key');
  });

  test('the blocks list gains a block live; the block, its transaction with its events, and the sender', async () => {
    await page.getByRole('link', { name: 'Blocks' }).click();
    await page.locator('#blocks tr').first().waitFor({ timeout: 30_000 });
    const call = await bump();
    const blockHash: string = call.txResult.blockHash;
    const row = page.locator('#blocks tr', { hasText: blockHash });
    await row.waitFor({ timeout: 30_000 });
    expect(await page.locator('#blocks tr').first().textContent()).toContain(blockHash);
    await shot('blocks');

    await row.locator('a').first().click();
    await page.waitForFunction((h) => (globalThis as any).document.getElementById('block-hash')?.textContent === h, blockHash, { timeout: 30_000 });
    expect(await page.locator('#block-transactions tbody tr').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining(call.hash)]));
    await shot('block');

    await page.locator('#block-transactions a', { hasText: call.hash }).click();
    await page.waitForFunction((h) => (globalThis as any).document.getElementById('tx-hash')?.textContent === h, call.hash, { timeout: 30_000 });
    expect(await text('#tx-status')).toBe('Success');
    expect(await page.locator('#tx-events tbody tr').allTextContents()).toEqual([expect.stringContaining('Bumped')]);
    expect(await text('#tx-events tbody td:nth-child(3)')).toBe('{"count":"1"}');
    expect(await text('#tx-diff')).toContain(counter.address);
    await shot('transaction');

    const from = (await api(node, 'GET', '/platform/v2.3/key', dana)).body.address;
    await page.locator('#tx-fields a', { hasText: from }).click();
    await page.waitForFunction((a) => (globalThis as any).document.getElementById('account-address')?.textContent === a, from, { timeout: 30_000 });
    // dana's upload and her bump
    expect(Number(await text('#account-nonce'))).toBe(2);
    expect(await page.locator('#certificate dd').allTextContents()).toEqual(expect.arrayContaining(['dana', 'Acme']));
    await shot('account');

    // a block's transactions are read 50 at a time
    const tally = await send(dana, [{ type: 'CONTRACT', payload: { contract: 'Tally', src: 'contract Tally { uint public n; function add() { n += 1; } }', args: {}, metadata: { VM: 'SolidVM' } } }]);
    const adds = (await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', dana, { txs: Array.from({ length: 70 }, () => ({ type: 'FUNCTION', payload: { contractAddress: tally.data.contents.address, method: 'add', args: {}, metadata: { VM: 'SolidVM' } } })) })).body as any[];
    const perBlock = new Map<string, number>();
    for (const a of adds) perBlock.set(a.txResult.blockHash, (perBlock.get(a.txResult.blockHash) ?? 0) + 1);
    const [bigBlock, size] = [...perBlock].sort((a, b) => b[1] - a[1])[0];
    expect(size).toBeGreaterThan(50);
    await page.goto(`${node.gatewayUrl}/dashboard#/blocks`);
    await page.locator('#blocks tr', { hasText: bigBlock }).locator('a').first().click({ timeout: 30_000 });
    await page.waitForFunction((h) => (globalThis as any).document.getElementById('block-hash')?.textContent === h, bigBlock, { timeout: 30_000 });
    await page.locator('#block-transactions tbody tr').nth(49).waitFor();
    const firstPage = await page.locator('#block-transactions tbody tr').allTextContents();
    await page.getByRole('button', { name: 'Next →' }).click();
    await page.locator('.pager span', { hasText: `transactions 51–${size} of ${size}` }).waitFor();
    const secondPage = await page.locator('#block-transactions tbody tr').allTextContents();
    expect([firstPage.length, secondPage.length, new Set([...firstPage, ...secondPage]).size]).toEqual([50, size - 50, size]);
    await page.getByRole('button', { name: '← Previous' }).click();
    await page.locator('.pager span', { hasText: `transactions 1–50 of ${size}` }).waitFor();
    expect(await page.locator('#block-transactions tbody tr').allTextContents()).toEqual(firstPage);

    // what does not exist is said on the page
    await page.goto(`${node.gatewayUrl}/dashboard#/block/999999`);
    expect(await text('#view [role="alert"]')).toBe('there is no block 999999 on the main chain (yet)');
    await page.goto(`${node.gatewayUrl}/dashboard#/tx/${'ab'.repeat(32)}`);
    const unknown = page.locator('#view [role="alert"]', { hasText: 'unknown transaction' });
    expect(await unknown.textContent({ timeout: 30_000 })).toBe(`unknown transaction hash: ${'ab'.repeat(32)}`);
  });

  test("the contract's page: source, xabi, current state, history and events; the cirrus query box", async () => {
    await eventually(async () => (await api(node, 'GET', '/cirrus/search/Counter?select=count', dana)).body?.[0]?.count === 1);
    await page.goto(`${node.gatewayUrl}/dashboard#/tx/${counter.hash}`);
    await page.locator('#tx-fields a', { hasText: `Counter at ${counter.address}` }).click();
    await page.locator('#contract-source').waitFor({ timeout: 30_000 });
    expect(await text('#contract-source')).toBe(COUNTER);
    expect(JSON.parse((await text('#contract-xabi'))!).funcs).toHaveProperty('bump');
    expect(JSON.parse((await text('#contract-state'))!)).toEqual({ count: 1 });
    await page.locator('#contract-history tbody tr').nth(1).waitFor({ timeout: 30_000 });
    // most recent first: the bump, then the creation
    const history = await page.locator('#contract-history tbody tr').allTextContents();
    expect([history.length, history[0].endsWith('{"count":1}'), history[1].endsWith('{"count":0}')]).toEqual([2, true, true]);
    await page.locator('#contract-events-Bumped tbody tr').first().waitFor({ timeout: 30_000 });
    expect(await page.locator('#contract-events-Bumped tbody tr td').last().textContent()).toBe('{"count":"1"}');
    await shot('contract');

    await page.getByRole('link', { name: 'cirrus: Counter' }).click();
    await page.fill('#query-text', 'select=count');
    expect(await page.textContent('#query-url')).toBe('/cirrus/search/Counter?select=count');
    await page.click('#query-form button[type="submit"]');
    await page.waitForFunction(() => ((globalThis as any).document.getElementById('query-rows')?.textContent ?? '').includes('count'), undefined, { timeout: 30_000 });
    expect(JSON.parse((await page.textContent('#query-rows'))!)).toEqual([{ count: 1 }]);
    await shot('contracts');
  });

  test('a private chain is nothing to a non-member; once the user is a member, its members and governance events', async () => {
    const created = await api(node, 'POST', '/bloc/v2.2/chain', dana, { label: 'Acme only', contract: 'AutoApprove', src: AUTO_APPROVE_SOURCE, args: {}, members: [], balances: [], metadata: { VM: 'SolidVM' } });
    expect(created.status).toBe(200);
    const chain: string = created.body;
    // by keyboard: the link, then the focus on the new page's heading
    await page.focus('nav a[href="#/chains"]');
    await page.keyboard.press('Enter');
    await page.locator('#chains').waitFor();
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('view-title');
    expect(await page.locator('#chains tbody tr').count()).toBe(0);
    await page.goto(`${node.gatewayUrl}/dashboard#/chain/${chain}`);
    expect(await text('#chain-missing')).toBe(`No chain ${chain} that you may see.`);
    await shot('chain-non-member');

    // erin's organization (her certificate's) is added by the chain's governance
    const erin = await devToken(node, 'erin');
    const erinAddress = (await api(node, 'GET', '/platform/v2.3/key', erin)).body.address;
    const [cert] = (await api(node, 'GET', `/cirrus/search/Certificate?userAddress=eq.${erinAddress}&select=organization`, erin)).body;
    await send(dana, [{ type: 'FUNCTION', payload: { contractAddress: GOVERNANCE, method: 'addOrg', args: { _orgName: cert.organization }, metadata: { VM: 'SolidVM' }, chainid: chain } }]);
    await eventually(async () => (await api(node, 'GET', `/bloc/v2.2/chain/${chain}`, erin)).status === 200);
    await eventually(async () => (await api(node, 'GET', `/cirrus/search/AutoApprove.OrgAdded?chainId=eq.${chain}`, erin)).body?.length === 1);
    await page.goto(`${node.gatewayUrl}/dashboard#/chains`);
    await page.locator('#chains tbody tr').first().waitFor({ timeout: 30_000 });
    await page.locator('#chains a', { hasText: chain }).click();
    await page.waitForFunction((id) => (globalThis as any).document.getElementById('chain-id')?.textContent === id, chain, { timeout: 30_000 });
    expect(await text('#chain-label')).toBe('Acme only');
    expect(await page.locator('#chain-members tbody tr').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('Acme')]));
    const governance = page.locator('#chain-governance tbody tr');
    expect(await governance.count()).toBe(1);
    expect(await governance.first().textContent()).toContain(`OrgAdded`);
    expect(await governance.first().textContent()).toContain(cert.organization);
    await shot('chain');

    // its genesis block, found in a fresh page (no position remembered) by searching the record
    await page.getByRole('link', { name: 'its genesis block' }).click();
    await page.reload();
    await page.waitForFunction(() => /^[0-9a-f]{64}$/.test((globalThis as any).document.getElementById('block-hash')?.textContent ?? ''), undefined, { timeout: 30_000 });
    expect(await page.locator('#block-fields dd').allTextContents()).toEqual(['0', chain, expect.stringMatching(/^[0-9a-f]{64}$/), expect.any(String), expect.stringMatching(/ UTC$/), '1']);
    expect(await page.locator('#block-transactions tbody tr').count()).toBe(1);
  });

  test('signing out forgets the token', async () => {
    await page.goto(`${node.gatewayUrl}/dashboard#/`);
    await status('Live');
    await page.click('#sign-out');
    await status('Signed out');
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('dashboard.token'))).toBeNull();
  });
});
