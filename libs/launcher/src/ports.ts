import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

/**
 * A TCP port that was free a moment ago on the given host, chosen below the
 * kernel's ephemeral range: a port from that range can be taken, between the
 * choice and the listen, as the local end of any outgoing connection on the
 * machine (a long-lived bus or database connection then keeps a service from
 * ever listening), while ports below it are only ever taken by a listen.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const [low] = ephemeralRange();
  const first = 15_000;
  if (low - first >= 1_000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = first + Math.floor(Math.random() * (low - first));
      if (await canListen(host, port)) return port;
    }
  }
  return listenOnce(host, 0);
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
