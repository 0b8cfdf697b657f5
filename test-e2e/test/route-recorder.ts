// A TCP proxy in front of each node's NATS route port, for the network's
// privacy test: every route connection of the cluster goes through one (the
// servers advertise the proxies' addresses, and their routes name them), and
// each connection's bytes, both ways, are searched for the test's markers as
// they pass. Nothing is kept but what was found, so the whole run's traffic
// costs no memory.
//
// A connection is told apart by the servers it joins: each side of a route
// sends `INFO {…"name":"<server name>"…}` first thing.
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

export interface RecordedConnection {
  /** the server names both sides announced */
  servers: Set<string>;
  /** bytes carried, both ways */
  bytes: number;
  /** the labels of the markers seen in either direction */
  found: Set<string>;
}

export interface RouteRecorder {
  /** where the other servers reach node `index`'s routes */
  address(index: number): string;
  connections(): RecordedConnection[];
  stop(): Promise<void>;
}

/** A streaming search of one direction of a connection for every needle, across chunk boundaries. */
class NeedleScanner {
  private tail = Buffer.alloc(0);
  private readonly keep: number;

  constructor(
    private readonly needles: ReadonlyArray<{ label: string; bytes: Buffer }>,
    private readonly found: Set<string>,
  ) {
    this.keep = Math.max(...needles.map((n) => n.bytes.length)) - 1;
  }

  scan(chunk: Buffer): void {
    const window = Buffer.concat([this.tail, chunk]);
    for (const needle of this.needles) if (window.includes(needle.bytes)) this.found.add(needle.label);
    this.tail = window.subarray(Math.max(0, window.length - this.keep));
  }
}

/** a route's INFO names its server (its CONNECT names the server's ID the same way: both are kept) */
const SERVER_NAME = /"(?:server_)?name":"([^"]+)"/g;

/**
 * Starts one proxy per node (`targets`: node index → its route port) that
 * searches what passes for `needles` (label → bytes).
 */
export async function startRouteRecorder(targets: ReadonlyMap<number, number>, needles: ReadonlyMap<string, Buffer>): Promise<RouteRecorder> {
  const list = [...needles].map(([label, bytes]) => ({ label, bytes }));
  const connections: RecordedConnection[] = [];
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const addresses = new Map<number, string>();
  for (const [index, port] of targets) {
    const server = createServer((inbound) => {
      const record: RecordedConnection = { servers: new Set(), bytes: 0, found: new Set() };
      connections.push(record);
      const outbound = connect(port, '127.0.0.1');
      for (const socket of [inbound, outbound]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        // a server that dies mid-test resets its connections: the other side is closed with it
        socket.on('error', () => {
          inbound.destroy();
          outbound.destroy();
        });
      }
      const relay = (from: Socket, to: Socket) => {
        const scanner = new NeedleScanner(list, record.found);
        let head = '';
        from.on('data', (chunk: Buffer) => {
          record.bytes += chunk.length;
          if (head.length < 4096) {
            head += chunk.toString('latin1');
            for (const [, name] of head.matchAll(SERVER_NAME)) record.servers.add(name!);
          }
          scanner.scan(chunk);
          to.write(chunk);
        });
        from.on('end', () => to.end());
      };
      relay(inbound, outbound);
      relay(outbound, inbound);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('the route proxy has no port');
    addresses.set(index, `127.0.0.1:${address.port}`);
    servers.push(server);
  }
  return {
    address(index) {
      const address = addresses.get(index);
      if (!address) throw new Error(`no route proxy for node ${index}`);
      return address;
    },
    connections: () => [...connections],
    async stop() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}

/** The labels of the needles found in any file under `roots` (a node's data dir, its PostgreSQL cluster): what it stores, searched as bytes. */
export function findInFiles(roots: readonly string[], needles: ReadonlyMap<string, Buffer>): Set<string> {
  const found = new Set<string>();
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      return; // removed meanwhile (a temporary file of a running server)
    }
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path)) visit(join(path, entry));
      return;
    }
    if (!stat.isFile()) return;
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      return;
    }
    for (const [label, needle] of needles) if (bytes.includes(needle)) found.add(label);
  };
  for (const root of roots) visit(root);
  return found;
}
