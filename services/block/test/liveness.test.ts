// A chain that cannot make progress is visible: while its block loop keeps
// failing (here: the EXEC stream is gone, so no result can be published) the
// block service's health endpoint says the chain is stuck, why, and how many
// rounds were retried; the log says it once, not once per retry; and once
// the cause is gone the chain goes on from where it stopped.
import { BLOCK, STREAMS, call, ensureStream, readExecResult, streamManager } from '@platform/bus';
import type { Logger } from '@platform/common';
import { contractAddress } from '@platform/crypto';
import { Account, COUNTER, blockFixture, type BlockFixture } from './helpers.js';

let f: BlockFixture;
beforeEach(async () => {
  f = await blockFixture();
});
afterEach(async () => {
  await f.stop();
});

/** A logger keeping every line's message (pino's signature: an object first, then the message). */
function recordingLogger(lines: Array<{ level: string; msg: string }>): Logger {
  const at = (level: string) => (obj: unknown, msg?: string) => void lines.push({ level, msg: typeof obj === 'string' ? obj : (msg ?? '') });
  const logger = { fatal: at('fatal'), error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), trace: at('trace'), child: () => logger, level: 'info' };
  return logger as unknown as Logger;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a chain whose results cannot be published is reported stuck, logged once, counted, and resumes when it can', async () => {
  const lines: Array<{ level: string; msg: string }> = [];
  await f.start({ logger: recordingLogger(lines) });
  const health = async () => (await call(f.nc, BLOCK.health, {})).chains;
  expect(await health()).toEqual([{ chainId: '', height: 0, stuck: false, since: null, reason: null, retries: 0, halted: null, networkHeight: 0, agreedHeight: null }]);

  const jsm = await streamManager(f.nc);
  await jsm.streams.delete(STREAMS.exec.name);
  const alice = new Account();
  const create = alice.create(COUNTER, 'Counter', { start: 1 });
  await f.publish(create);
  let chain = (await health())[0];
  for (let i = 0; !chain.stuck; i++) {
    if (i > 100) throw new Error(`the chain was never reported stuck: ${JSON.stringify(chain)}`);
    await sleep(100);
    chain = (await health())[0];
  }
  expect(chain).toMatchObject({ chainId: '', stuck: true, reason: expect.any(String), since: expect.any(Number), halted: null });
  // a few more rounds: counted, not logged
  await sleep(1_500);
  const failing = (await health())[0];
  expect(failing.retries).toBeGreaterThanOrEqual(chain.retries + 2);
  expect(lines.filter((l) => l.msg.startsWith('block loop failed'))).toHaveLength(1);

  await ensureStream(jsm, STREAMS.exec);
  for (let i = 0; (await health())[0].stuck; i++) {
    if (i > 100) throw new Error('the chain did not resume');
    await sleep(100);
  }
  const resumed = (await health())[0];
  expect(resumed).toMatchObject({ stuck: false, reason: null, since: null, halted: null });
  expect(resumed.height).toBeGreaterThanOrEqual(1);
  expect(resumed.retries).toBeGreaterThanOrEqual(failing.retries);
  expect(lines.filter((l) => l.msg === 'the chain makes progress again')).toHaveLength(1);
  // the block held back was published, and the chain takes the next one
  const next = alice.call(contractAddress(alice.address, 0n), 'add', { n: 2 });
  await f.publish(next);
  for (let i = 0; ; i++) {
    const last = await jsm.streams.getMessage(STREAMS.exec.name, { last_by_subj: 'exec.main' }).catch(() => null);
    const exec = last ? await readExecResult(async () => jsm, last.data) : null;
    if (exec?.receipts.some((r) => r.transactionHash === next.hash)) {
      expect(exec.receipts[0].returnValues).toEqual(['3']);
      break;
    }
    if (i > 100) throw new Error('the next transaction was not executed');
    await sleep(100);
  }
});
