// The events bench's subscribers (events.bench.ts), in a thread of their own:
// reading a thousand streams takes a core of its own, and in the bench's own
// thread it would delay the load's requests (the client's, not the node's
// cost). Plain JavaScript, so that the worker needs no TypeScript loader.
// Each subscriber notes when it read each block's message (ms since the
// epoch, performance.timeOrigin + now(), the clock the bench's thread uses
// too) and reads the rest without looking at it.
import { request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const BLOCK_HASH = /event: block\ndata: \{"hash":"([0-9a-f]{64})"/g;
const now = () => performance.timeOrigin + performance.now();
const { gatewayUrl, bearer, count, query } = workerData;
const subscribers = [];

function subscribe() {
  return new Promise((resolve, reject) => {
    const req = request(`${gatewayUrl}/platform/v2.3/events${query}`, { agent: false, headers: { authorization: bearer, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`events: ${res.statusCode}`));
      const sub = { read: new Map(), bytes: 0, lagged: false, close: () => req.destroy() };
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        const at = now();
        sub.bytes += chunk.length;
        // a block's line may be split between two chunks: the last 200 characters are looked at again
        const text = tail + chunk;
        for (const match of text.matchAll(BLOCK_HASH)) if (!sub.read.has(match[1])) sub.read.set(match[1], at);
        // told it fell too far behind: the node cut it off
        if (text.includes('event: lagged')) sub.lagged = true;
        tail = text.slice(-200);
      });
      res.on('error', () => undefined);
      subscribers.push(sub);
      resolve();
    });
    req.on('error', reject);
    req.end();
  });
}

parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  for (const sub of subscribers) sub.close();
  parentPort.postMessage({ type: 'done', reads: subscribers.map((s) => [...s.read]), bytes: subscribers.reduce((n, s) => n + s.bytes, 0), lagged: subscribers.filter((s) => s.lagged).length });
});

try {
  for (let i = 0; i < count; i += 100) await Promise.all(Array.from({ length: Math.min(100, count - i) }, subscribe));
  parentPort.postMessage({ type: 'ready' });
} catch (err) {
  parentPort.postMessage({ type: 'failed', message: err.message });
}
