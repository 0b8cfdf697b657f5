import { CertError } from './errors.js';

const PEM_RE = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** Every PEM block in `text`, in order, with its label (`CERTIFICATE`, `PUBLIC KEY`, …). */
export function pemBlocks(text: string): { label: string; der: Uint8Array }[] {
  if (typeof text !== 'string') throw new CertError('BAD_PEM', 'PEM must be a string');
  const out: { label: string; der: Uint8Array }[] = [];
  for (const m of text.matchAll(PEM_RE)) {
    const body = m[2].replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0 || body.length === 0) {
      throw new CertError('BAD_PEM', `malformed base64 in PEM block ${m[1]}`);
    }
    out.push({ label: m[1], der: new Uint8Array(Buffer.from(body, 'base64')) });
  }
  return out;
}

/** The DER of the single block labelled `label` in `pem`; `BAD_PEM` if there is none or more than one. */
export function pemToDer(pem: string, label = 'CERTIFICATE'): Uint8Array {
  const blocks = pemBlocks(pem).filter((b) => b.label === label);
  if (blocks.length !== 1) {
    throw new CertError('BAD_PEM', blocks.length === 0 ? `no PEM block labelled ${label}` : `more than one PEM block labelled ${label}`);
  }
  return blocks[0].der;
}

/** PEM text (64-column base64, trailing newline). */
export function derToPem(der: Uint8Array, label = 'CERTIFICATE'): string {
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
