// freePort's ports are ones a listen can have, outside the range the kernel
// hands to outgoing connections (which would otherwise take them between the
// choice and the listen).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from '../src/ports.js';

test('freePort answers listenable ports below the ephemeral range, never the same one twice in a process', async () => {
  const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  for (const port of ports) expect(port).toBeLessThan(low);
  expect(new Set(ports).size).toBe(ports.length);
  for (const port of ports.slice(0, 5)) {
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise((r) => server.close(r));
  }
});

test('a jest worker draws from its own slice of the range', async () => {
  const worker = Number(process.env.JEST_WORKER_ID);
  const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const size = Math.floor((low - 15_000) / 8);
  const start = 15_000 + ((worker - 1) % 8) * size;
  for (const port of await Promise.all(Array.from({ length: 20 }, () => freePort()))) {
    expect(port).toBeGreaterThanOrEqual(start);
    expect(port).toBeLessThan(start + size);
  }
});
