// A TCP proxy in front of each node's NATS route port, for the network's
// privacy test: every route connection of the cluster goes through one (the
// servers advertise the proxies' addresses, and their routes name them), and
// each connection's bytes, both ways, are searched for the test's markers as
// they pass. Nothing is kept but what was found, so the whole run's traffic
// costs no memory.
//
// A connection is told apart by the servers it joins: each side of a route
// sends `INFO {…"name":"<server name>"…}` first thing.
//
// It can also feed one server's consumers a tampered block:
// `tamperBlocksInto(server, find, replace)` rewrites every occurrence of
// some bytes with as many others (so the protocol's sizes hold) in the
// blocks delivered toward that server, and nothing else: not the blocks
// stream's replication (a consumer of another node hosted on that server
// would read the rewritten copy), not an admitted transaction. So the proxy
// reads the route protocol: each line, and each message (`RMSG`/`HMSG`,
// whose line ends with the size of what follows) whole; a delivery from the
// stream names it in its reply subject, `$JS.ACK.BLOCKS.<consumer>.…`. A
// consumer hosted on the server itself receives its blocks without a route:
// those pass untouched.
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
  /** rewrites `find` as `replace` (same length) in the blocks delivered toward the server named `server` (above), from now on; `rewritten()` counts them */
  tamperBlocksInto(server: string, find: Buffer, replace: Buffer): { rewritten(): number; seen(): string[] };
  stop(): Promise<void>;
}

interface Tamper {
  server: string;
  find: Buffer;
  replace: Buffer;
  count: number;
  /** each rewrite: the names of the side it flowed toward and of the side it came from, and the message's line */
  seen: string[];
}

/** A message's line (`RMSG`/`HMSG`): a payload of the size it ends with follows it. */
const isMessageLine = (line: string) => line.startsWith('RMSG ') || line.startsWith('HMSG ');

/** One unit of the route protocol: a line, or a message's line with what follows it. */
interface Unit {
  /** the line, without its CRLF */
  line: string;
  bytes: Buffer;
}

/**
 * Splits one direction of a route connection into the protocol's units, across chunk boundaries.
 * A large message arrives in many chunks: they are kept apart until the message is whole, and joined
 * once (joining them again at every chunk is quadratic, and stalled the routes during a catch-up).
 */
class RouteUnits {
  private chunks: Buffer[] = [];
  private length = 0;
  /** how many bytes the unit at the front needs: nothing is parsed before they are here */
  private needed = 0;

  push(chunk: Buffer): Unit[] {
    this.chunks.push(chunk);
    this.length += chunk.length;
    if (this.length < this.needed) return [];
    const buffer = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks, this.length);
    const units: Unit[] = [];
    let at = 0;
    this.needed = 0;
    for (;;) {
      const eol = buffer.indexOf('\r\n', at);
      if (eol < 0) break;
      const line = buffer.toString('latin1', at, eol);
      let end = eol + 2;
      // RMSG <account> <subject> [reply | + reply queues | | queues] <size>; HMSG … <header size> <total size>
      if (isMessageLine(line)) {
        const size = Number(line.slice(line.lastIndexOf(' ') + 1));
        end = eol + 2 + size + 2;
        if (buffer.length < end) {
          this.needed = end - at;
          break;
        }
      }
      units.push({ line, bytes: buffer.subarray(at, end) });
      at = end;
    }
    const rest = buffer.subarray(at);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.length = rest.length;
    return units;
  }
}

/** A message of the blocks stream delivered to a consumer: its reply subject acknowledges it. */
const BLOCK_DELIVERY = ' $JS.ACK.BLOCKS.';

/** `unit` with every occurrence of a rule's bytes replaced, for the rules of the server it flows toward (known by the names that side announced). */
function tampered(unit: Unit, toward: ReadonlySet<string>, from: ReadonlySet<string>, rules: readonly Tamper[]): Buffer {
  if (!isMessageLine(unit.line) || !unit.line.includes(BLOCK_DELIVERY)) return unit.bytes;
  for (const rule of rules) {
    if (!toward.has(rule.server) || !unit.bytes.includes(rule.find)) continue;
    for (let at = unit.bytes.indexOf(rule.find); at >= 0; at = unit.bytes.indexOf(rule.find, at + rule.find.length)) {
      rule.replace.copy(unit.bytes, at);
      rule.count++;
      rule.seen.push(`toward ${[...toward].join('/')} from ${[...from].join('/')}: ${unit.line.slice(0, 160)}`);
    }
  }
  return unit.bytes;
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
  const rules: Tamper[] = [];
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
      // the names each side announced: what flows toward a side is tampered by that side's rules
      const announced = new Map<Socket, Set<string>>([
        [inbound, new Set()],
        [outbound, new Set()],
      ]);
      const relay = (from: Socket, to: Socket) => {
        const scanner = new NeedleScanner(list, record.found);
        const units = new RouteUnits();
        let sentInfo = false;
        from.on('data', (chunk: Buffer) => {
          record.bytes += chunk.length;
          scanner.scan(chunk);
          // whole units only, so that a message is rewritten (or not) as one
          const ready = units.push(chunk);
          // a side's names are those of its first INFO and its CONNECT: a message's payload may name any
          // server, and a later INFO gossips another server's (one the side learned of, for its peers to connect to)
          for (const unit of ready) {
            const own = unit.line.startsWith('CONNECT ') || (unit.line.startsWith('INFO ') && !sentInfo);
            if (unit.line.startsWith('INFO ')) sentInfo = true;
            if (!own) continue;
            for (const [, name] of unit.line.matchAll(SERVER_NAME)) {
              record.servers.add(name!);
              announced.get(from)!.add(name!);
            }
          }
          if (ready.length > 0) to.write(Buffer.concat(ready.map((unit) => (rules.length > 0 ? tampered(unit, announced.get(to)!, announced.get(from)!, rules) : unit.bytes))));
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
    tamperBlocksInto(server, find, replace) {
      if (find.length !== replace.length || find.length === 0) throw new Error('a tampering keeps the length: find and replace must be as long, and not empty');
      const rule: Tamper = { server, find, replace, count: 0, seen: [] };
      rules.push(rule);
      return { rewritten: () => rule.count, seen: () => [...rule.seen] };
    },
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
