// The file application on a whole node (`npm run bench -- files`): one file
// of FILES_BENCH_MIB MiB (default 1024) uploaded through the gateway as a
// multipart form read straight from disk, then downloaded whole and read to
// the end, each timed from the first byte sent to the last byte received;
// then the files service's RSS idle (after a 1 MiB transfer each way, so
// that code the first transfer loads is counted there), its highest during
// each transfer (sampled every 20 ms), and the peak RSS of the files service
// (which hashes and stores the upload while it streams, and never holds a
// file whole), of the gateway (which passes both through), and of the
// embedded object store.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, openAsBlob, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { startNode } from '@platform/launcher';
import { benchNodeEnv, peakRssMiB, token, type Row } from './probes.js';

const MIB = 1024 * 1024;
const SIZE_MIB = Number(process.env.FILES_BENCH_MIB ?? 1024);

/** A process's resident memory now (VmRSS), MiB; null once it is gone. */
function rssMiB(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** The highest RSS of `pid` while `body` runs, sampled every 20 ms. */
async function peakWhile<T>(pid: number, body: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = rssMiB(pid) ?? 0;
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid) ?? 0)), 20);
  try {
    return { result: await body(), peak };
  } finally {
    clearInterval(timer);
  }
}

/** A file of `mib` MiB of random bytes (one random MiB repeated, so that writing it costs little), and its SHA-256. */
async function makeFile(path: string, mib: number): Promise<string> {
  const block = randomBytes(MIB);
  const digest = createHash('sha256');
  const out = createWriteStream(path);
  for (let i = 0; i < mib; i++) {
    digest.update(block);
    if (!out.write(block)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return digest.digest('hex');
}

export async function run(): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-files-'));
  const filePath = join(dataDir, 'payload.bin');
  const hash = await makeFile(filePath, SIZE_MIB);
  const node = await startNode({ env: await benchNodeEnv(join(dataDir, 'node')), onLine: (name, line) => /"level":(50|60)/.test(line) && console.log(`   ${name} | ${line.slice(0, 300)}`) });
  const rows: Row[] = [];
  try {
    const bearer = `Bearer ${await token(node, 'bench-files')}`;
    const key = await fetch(`${node.gatewayUrl}/platform/v2.3/key`, { method: 'POST', headers: { authorization: bearer } });
    if (!key.ok) throw new Error(`key: ${key.status} ${await key.text()}`);

    const files = node.processes.get('files')!.pid!;
    // a small file first: what the first transfer loads once (the S3 client's code paths) is not the big one's
    const warmUp = new FormData();
    warmUp.append('file', new Blob([randomBytes(MIB)]), 'warm-up.bin');
    const warm = await fetch(`${node.gatewayUrl}/api/v1/files`, { method: 'POST', headers: { authorization: bearer }, body: warmUp });
    const warmKey = ((await warm.json()) as { data: { fileKey: string } }).data.fileKey;
    await (await fetch(`${node.gatewayUrl}/api/v1/files/${encodeURIComponent(warmKey)}/versions/1`, { headers: { authorization: bearer } })).arrayBuffer();
    rows.push({ name: 'RSS: files, idle after a 1 MiB transfer each way', value: rssMiB(files) ?? 0, unit: 'MiB' });
    const form = new FormData();
    form.append('fileDescription', 'benchmark payload');
    form.append('file', await openAsBlob(filePath), 'payload.bin');
    let started = performance.now();
    const up = await peakWhile(files, async () => {
      const uploaded = await fetch(`${node.gatewayUrl}/api/v1/files`, { method: 'POST', headers: { authorization: bearer }, body: form });
      const answer = (await uploaded.json()) as { data?: { fileKey: string; versions: Array<{ fileHash: string }> } };
      if (!uploaded.ok || answer.data?.versions[0]?.fileHash !== hash) throw new Error(`upload: ${uploaded.status} ${JSON.stringify(answer).slice(0, 300)}`);
      return answer.data.fileKey;
    });
    const uploadSeconds = (performance.now() - started) / 1000;
    rows.push({ name: `upload ${SIZE_MIB} MiB (to the record's answer)`, value: SIZE_MIB / uploadSeconds, unit: 'MiB/s' });
    rows.push({ name: 'RSS: files, highest during the upload', value: up.peak, unit: 'MiB' });

    started = performance.now();
    const down = await peakWhile(files, async () => {
      const download = await fetch(`${node.gatewayUrl}/api/v1/files/${encodeURIComponent(up.result)}/versions/1`, { headers: { authorization: bearer } });
      if (!download.ok || !download.body) throw new Error(`download: ${download.status}`);
      const digest = createHash('sha256');
      let received = 0;
      for await (const chunk of download.body) {
        digest.update(chunk);
        received += chunk.length;
      }
      if (received !== SIZE_MIB * MIB || digest.digest('hex') !== hash) throw new Error(`download: ${received} bytes, not the file`);
    });
    const downloadSeconds = (performance.now() - started) / 1000;
    rows.push({ name: `download ${SIZE_MIB} MiB`, value: SIZE_MIB / downloadSeconds, unit: 'MiB/s' });
    rows.push({ name: 'RSS: files, highest during the download', value: down.peak, unit: 'MiB' });

    for (const name of ['files', 'gateway', 'object-store']) {
      const pid = node.processes.get(name)?.pid;
      const peak = pid ? peakRssMiB(pid) : null;
      if (peak !== null) rows.push({ name: `peak RSS: ${name} (VmHWM, its start included)`, value: peak, unit: 'MiB' });
    }
    return rows;
  } finally {
    await node.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
