// The file application's page (`/files`), driven in headless Chromium
// (Debian's `chromium`, installed with apt-get when missing and the test runs
// as root) as a person would use it: sign in with a token, upload, add a
// version, share, download, attest, remove a member; what the page shows is
// checked, and a file name that is markup stays text.
import { readFileSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, ensureChromium } from './chromium.js';
import { api, devToken, startTestNode, type TestNode } from './harness.js';

const NODE_START_MS = 300_000;
/** a test of a few actions, each waited for up to 75 s (done, below) */
const ACTION_TEST_MS = 180_000;

describe('the file application page', () => {
  let node: TestNode;
  let browser: Browser;
  let page: Page;
  const tokens: Record<string, string> = {};
  const addresses: Record<string, string> = {};
  const v1 = Buffer.from('agenda: budget, hiring\n');
  const v2 = Buffer.from('agenda: budget, hiring, offices\n');

  beforeAll(async () => {
    ensureChromium();
    node = await startTestNode();
    for (const user of ['alice', 'bob']) {
      tokens[user] = await devToken(node, user, 'Acme');
      addresses[user] = (await api(node, 'POST', '/platform/v2.3/key', tokens[user])).body.address;
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await (await browser.newContext({ acceptDownloads: true })).newPage();
  }, NODE_START_MS);
  afterAll(async () => {
    await browser?.close();
    await node?.destroy();
  });

  /**
   * Waits for the status line an action ends with. An action is a
   * transaction and then a wait for cirrus to show it (up to 15 s, the files
   * service's INDEX_WAIT_MS): under a full test run a membership change has
   * taken over 30 s, so the wait is generous.
   */
  const done = async (text: string) => {
    // runs in the page (the tests' types have no DOM)
    await page.waitForFunction((expected) => (globalThis as any).document.getElementById('status')?.textContent?.startsWith(expected), text, { timeout: 75_000 }).catch(async (err: Error) => {
      // what the page said instead, for whoever reads the failure
      throw new Error(`${err.message}; the status line says ${JSON.stringify(await page.textContent('#status'))}`);
    });
    return page.locator('#status');
  };
  const file = (name: string, buffer: Buffer) => ({ name, mimeType: 'text/plain', buffer });

  test('signs in with a token and uploads a file: it is opened and listed', async () => {
    const answer = await page.goto(`${node.gatewayUrl}/files`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.fill('#token', tokens.alice!);
    await page.click('#use-token');
    await done('Signed in');
    expect(await page.textContent('#who')).toBe(`your address: ${addresses.alice}`);
    await page.setInputFiles('#upload-file', file('agenda.txt', v1));
    await page.fill('#upload-description', 'the board meeting');
    await page.fill('#upload-comments', 'draft');
    await page.click('#upload-button');
    expect(await (await done('Uploaded')).getAttribute('class')).toBe('ok');
    expect(await page.textContent('#file-name')).toBe('agenda.txt');
    expect(await page.textContent('#file-owner')).toBe(addresses.alice);
    expect(await page.locator('#files tr').allTextContents()).toEqual([expect.stringContaining('agenda.txt1')]);
  }, ACTION_TEST_MS);

  test('adds a version, shares it, downloads version 2 under its name, attests it', async () => {
    await page.setInputFiles('#version-file', file('agenda.txt', v2));
    await page.fill('#version-comments', 'with offices');
    await page.click('#version-button');
    await done('Version added');
    expect(await page.locator('#versions tr').count()).toBe(2);
    await page.fill('#member-address', addresses.bob!);
    await page.click('#share-button');
    await done('Shared');
    expect(await page.locator('#members li').allTextContents()).toEqual([`${addresses.alice} (owner)`, `${addresses.bob}Remove`]);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#versions tr').nth(1).getByText('Download').click()]);
    expect(download.suggestedFilename()).toBe('agenda_2.txt');
    expect(readFileSync((await download.path())!)).toEqual(v2);
    await page.setInputFiles('#attest-file', file('other.txt', v1));
    await page.fill('#attest-version', '2');
    await page.click('#attest-button');
    const refused = await done('Attested: Attestation failed');
    expect(await refused.getAttribute('class')).toBe('error');
    await page.setInputFiles('#attest-file', file('agenda_2.txt', v2));
    await page.click('#attest-button');
    await done('Attested');
    expect(await page.locator('#versions tr').nth(1).textContent()).toContain(addresses.alice);
  }, ACTION_TEST_MS);

  test('removes a member; the audit log shows every step', async () => {
    await page.locator('#members li').nth(1).getByText('Remove').click();
    await done('Removed');
    expect(await page.locator('#members li').count()).toBe(1);
    const log = await page.locator('#audit li').allTextContents();
    expect(log.map((line) => line.split(' ')[1])).toEqual(['MEMBER_ADDED', 'VERSION_ADDED', 'VERSION_ADDED', 'MEMBER_ADDED', 'ATTESTED', 'MEMBER_REMOVED']);
  }, ACTION_TEST_MS);

  test('a file name that is markup is shown as text', async () => {
    const name = '<img src=x onerror=alert(1)>.txt';
    page.on('dialog', () => {
      throw new Error('the file name ran as markup');
    });
    await page.setInputFiles('#upload-file', file(name, v1));
    await page.click('#upload-button');
    await done('Uploaded');
    expect(await page.textContent('#file-name')).toBe(name);
    expect(await page.locator('img').count()).toBe(0);
  }, ACTION_TEST_MS);
});
