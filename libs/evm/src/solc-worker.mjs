// solc's compile, on a worker thread (libs/evm/src/solc-thread.ts): a run
// takes 0.3–2 s of CPU that would otherwise hold the block service's event
// loop. Plain JavaScript, so that the worker loads without a TypeScript loader.
import { parentPort } from 'node:worker_threads';
import { createRequire } from 'node:module';

const solc = createRequire(import.meta.url)('solc');

parentPort.on('message', ({ id, input }) => {
  try {
    parentPort.postMessage({ id, output: solc.compile(input) });
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
