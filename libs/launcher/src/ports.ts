import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

/**
 * A TCP port that was free a moment ago on the given host, chosen below the
 * kernel's ephemeral range: a port from that range can be taken, between the
 * choice and the listen, as the local end of any outgoing connection on the
 * machine (a long-lived bus or database connection then keeps a service from
 * ever listening), while ports below it are only ever taken by a listen.
 *
 * A port is never answered twice by one process: callers ask for several
 * ports before anything listens on the first (a node's gateway, vault, files
 * ports…), and two equal answers leave one service failing to listen for good.
 * Parallel test workers each draw from their own slice of the range, so two
 * workers cannot be handed the same port either.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const [low] = ephemeralRange();
  const [first, end] = workerSlice(15_000, low);
  if (end - first >= 200) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const port = first + Math.floor(Math.random() * (end - first));
      if (handedOut.has(port)) continue;
      if (await canListen(host, port)) return handOut(port);
    }
  }
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await listenOnce(host, 0);
    if (!handedOut.has(port)) return handOut(port);
  }
  throw new Error('no free TCP port found');
}

const handedOut = new Set<number>();

function handOut(port: number): number {
  handedOut.add(port);
  return port;
}

/** jest's workers run at once on one machine; each has an id from 1 */
const WORKER_SLICES = 8;

function workerSlice(first: number, end: number): [number, number] {
  const worker = Number(process.env.JEST_WORKER_ID);
  if (!Number.isInteger(worker) || worker < 1) return [first, end];
  const size = Math.floor((end - first) / WORKER_SLICES);
  const start = first + ((worker - 1) % WORKER_SLICES) * size;
  return [start, start + size];
}

/** the kernel's ephemeral port range (Linux); elsewhere the IANA range */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low, high];
  } catch {
    // not Linux
  }
  return [49_152, 65_535];
}

async function canListen(host: string, port: number): Promise<boolean> {
  try {
    await listenOnce(host, port);
    return true;
  } catch {
    return false;
  }
}

function listenOnce(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Resolves once something accepts TCP connections on host:port, or rejects after timeoutMs. */
export async function waitForPort(host: string, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${host}:${port} after ${timeoutMs} ms`);
}
