// The dashboard (`/dashboard`) in headless Chromium, as a person uses it: it
// offers "Sign in", which goes to the node's development identity provider
// (authorization code + PKCE S256, from the discovery document), and comes
// back signed in; the overview shows the height, the services' health and,
// live from the events stream, each new transaction with its full hash and
// the height that follows it. A screenshot of each step is saved (not
// committed) in $DASHBOARD_SCREENSHOTS (default <tmp>/dashboard-screenshots).
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, ensureChromium } from './chromium.js';
import { api, devToken, startTestNode, type TestNode } from './harness.js';

const NODE_START_MS = 300_000;
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS ?? join(tmpdir(), 'dashboard-screenshots');

const COUNTER = 'contract Counter { uint public count; function bump() { count += 1; } }';

describe('the dashboard', () => {
  let node: TestNode;
  let browser: Browser;
  let page: Page;
  let token: string;

  beforeAll(async () => {
    ensureChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
    node = await startTestNode();
    token = await devToken(node, 'dana', 'Acme');
    expect((await api(node, 'POST', '/platform/v2.3/key', token)).status).toBe(200);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await (await browser.newContext()).newPage();
  }, NODE_START_MS);
  afterAll(async () => {
    await browser?.close();
    await node?.destroy();
  });

  const status = (text: string) =>
    page.waitForFunction((expected) => (globalThis as any).document.getElementById('status')?.textContent === expected, text, { timeout: 30_000 }).catch(async (err: Error) => {
      throw new Error(`${err.message}; the status line says ${JSON.stringify(await page.textContent('#status'))}`);
    });
  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

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

  test('the overview shows the height and the health, and each new transaction live with the height after it', async () => {
    await page.waitForFunction(() => /^\d+$/.test((globalThis as any).document.getElementById('height')?.textContent ?? ''));
    const before = Number(await page.textContent('#height'));
    expect(await page.locator('#health li').allTextContents()).toContain('chainsProgressing: ok');
    const res = await api(node, 'POST', '/platform/v2.3/transaction?resolve=true', token, { txs: [{ type: 'CONTRACT', payload: { contract: 'Counter', src: COUNTER, args: {}, metadata: { VM: 'SolidVM' } } }] });
    expect(res.body[0].status).toBe('Success');
    const { hash } = res.body[0];
    const row = page.locator('#transactions tr', { hasText: hash });
    await row.waitFor({ timeout: 30_000 });
    expect(await row.locator('td').allTextContents()).toEqual([hash, 'Success', expect.stringMatching(/^\d+$/), 'main']);
    const blockNumber = Number(await row.locator('td').nth(2).textContent());
    await page.waitForFunction((n) => Number((globalThis as any).document.getElementById('height')?.textContent) >= n, blockNumber);
    expect(blockNumber).toBeGreaterThan(before);
    await shot('overview');
  });

  test("a transaction's page, the cirrus query box with its exact URL, the chains and the user's own key", async () => {
    const hash = (await page.locator('#transactions tr a').first().textContent())!;
    await page.locator('#transactions tr a').first().click();
    await page.waitForFunction((h) => (globalThis as any).document.getElementById('tx-hash')?.textContent === h, hash);
    expect(await page.textContent('#tx-status')).toBe('Success');
    expect(await page.textContent('#tx-result')).toContain('"tag": "Upload"');
    await shot('transaction');

    // indexed (cirrus follows execution): then the page's query has its row
    for (let i = 0; i < 150 && (await api(node, 'GET', '/cirrus/search/Counter?select=count', token)).body?.length !== 1; i++) await new Promise((r) => setTimeout(r, 100));
    await page.getByRole('link', { name: 'Contracts' }).click();
    await page.fill('#query-table', 'Counter');
    await page.fill('#query-text', 'select=count');
    expect(await page.textContent('#query-url')).toBe('/cirrus/search/Counter?select=count');
    await page.click('#query-form button[type="submit"]');
    await page.waitForFunction(() => ((globalThis as any).document.getElementById('query-rows')?.textContent ?? '').includes('count'), undefined, { timeout: 30_000 });
    expect(JSON.parse((await page.textContent('#query-rows'))!)).toEqual([{ count: 0 }]);
    await shot('contracts');

    await page.getByRole('link', { name: 'Chains' }).click();
    await page.waitForFunction(() => !(globalThis as any).document.getElementById('page-chains')?.hidden);
    expect(await page.locator('#chains tr').count()).toBe(0);
    expect((await api(node, 'POST', '/platform/v2.3/key', await devToken(node, 'erin'))).status).toBe(200);
    await page.getByRole('link', { name: 'My key' }).click();
    await page.waitForFunction(() => /^[0-9a-f]{40}$/.test((globalThis as any).document.getElementById('key-address')?.textContent ?? ''));
    // the account (balance, nonce) is read after the key: a request of its own
    await page.waitForFunction(() => /^\d+$/.test((globalThis as any).document.getElementById('key-nonce')?.textContent ?? ''));
    expect(await page.textContent('#key-nonce')).toMatch(/^\d+$/);
    await shot('key');
    await page.getByRole('link', { name: 'Overview' }).click();
  });

  test('signing out forgets the token', async () => {
    await page.click('#sign-out');
    await status('Signed out');
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('dashboard.token'))).toBeNull();
  });
});
