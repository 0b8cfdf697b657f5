import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A scratch directory and the `openssl` CLI run inside it. */
export class OpenSsl {
  readonly dir = mkdtempSync(join(tmpdir(), 'certs-test-'));

  path(name: string): string {
    return join(this.dir, name);
  }

  write(name: string, text: string | Uint8Array): string {
    writeFileSync(this.path(name), text);
    return this.path(name);
  }

  read(name: string): string {
    return readFileSync(this.path(name), 'utf8');
  }

  /** Runs openssl; throws with its stderr when it fails. */
  run(...args: string[]): string {
    return execFileSync('openssl', args, { cwd: this.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  /** Runs openssl and returns its exit status and output, never throwing. */
  try(...args: string[]): { status: number | null; out: string } {
    const r = spawnSync('openssl', args, { cwd: this.dir, encoding: 'utf8' });
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  }

  /** `openssl verify -CAfile ca.pem cert.pem` (optional attime, seconds since the epoch). */
  verify(caPem: string, certPem: string, attime?: number): { status: number | null; out: string } {
    const ca = this.write(`ca-${Math.random().toString(36).slice(2)}.pem`, caPem);
    const cert = this.write(`cert-${Math.random().toString(36).slice(2)}.pem`, certPem);
    const extra = attime === undefined ? [] : ['-attime', String(attime)];
    return this.try('verify', ...extra, '-CAfile', ca, cert);
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
