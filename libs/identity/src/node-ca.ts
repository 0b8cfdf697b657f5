// The node's certificate authority (issue "Identity"): a secp256k1 key and a
// self-signed root certificate with subject O = NODE_ORG, created once in the
// data dir (`ca/node-ca.key`, mode 0600, and `ca/node-ca.pem`), unless
// NODE_CA_CERT / NODE_CA_KEY give one (each a file path or the PEM itself).
// The launcher creates it (libs/launcher/src/genesis.ts) before it writes a
// new network's genesis, which lists its certificate as a trusted root; the
// vault reads it here and signs with its key.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CertError, derToPem, parseCertificate, privateKeyFromPem, type NodeCa } from '@platform/certs';
import { keyPairFromPrivateKey } from '@platform/crypto';

export interface NodeCaSource {
  /** NODE_CA_CERT: a path or PEM text */
  cert?: string | null;
  /** NODE_CA_KEY: a path or PEM text */
  key?: string | null;
}

export interface NodeCaFiles {
  certFile: string;
  keyFile: string;
}

/** Where a node keeps a CA it generated itself. */
export function nodeCaFiles(dataDir: string): NodeCaFiles {
  return { certFile: join(dataDir, 'ca', 'node-ca.pem'), keyFile: join(dataDir, 'ca', 'node-ca.key') };
}

const pemOrFile = (value: string, variable: string): string => {
  if (value.includes('-----BEGIN')) return value;
  try {
    return readFileSync(value, 'utf8');
  } catch (err) {
    throw new Error(`${variable}: cannot read ${value}: ${(err as Error).message}`, { cause: err });
  }
};

/**
 * Reads a CA; the certificate must be a CA certificate on secp256k1 and the
 * key must be its key. Errors name the variable, never show the key.
 */
export function readNodeCa(source: { cert: string; key: string }, names = { cert: 'NODE_CA_CERT', key: 'NODE_CA_KEY' }): NodeCa {
  const certText = pemOrFile(source.cert, names.cert);
  const keyText = pemOrFile(source.key, names.key);
  let certificate;
  try {
    certificate = parseCertificate(certText);
  } catch (err) {
    throw new Error(`${names.cert}: not a secp256k1 certificate (${err instanceof CertError ? err.code : 'BAD_CERTIFICATE'}: ${(err as Error).message})`, { cause: err });
  }
  if (!certificate.isCa) throw new Error(`${names.cert}: the certificate is not a CA certificate (basicConstraints cA)`);
  let privateKey: Uint8Array;
  try {
    privateKey = privateKeyFromPem(keyText);
  } catch (err) {
    // the cause's message could quote the key material: only its code
    throw new Error(`${names.key}: not a secp256k1 private key in PEM (${err instanceof CertError ? err.code : 'BAD_KEY'})`); // eslint-disable-line preserve-caught-error
  }
  if (keyPairFromPrivateKey(privateKey).address !== certificate.address) throw new Error(`${names.key}: the key is not the key of the certificate in ${names.cert}`);
  return { privateKey, certificatePem: derToPem(certificate.der), certificate };
}
