// The node's certificate authority, kept by the vault (the node's key
// keeper): it signs users' certificates and never lets its key out. Loaded
// at start from NODE_CA_CERT / NODE_CA_KEY (the launcher passes the files it
// created in the data dir, or the ones the operator gave), else from the data
// dir's `ca/`; without either, issuing answers UNAVAILABLE.
import { existsSync } from 'node:fs';
import { CertError, issueCertificate, toUncompressedPublicKey, type NodeCa } from '@platform/certs';
import { PlatformError, type NodeConfig } from '@platform/common';
import type { IssueRequest, IssuedCertificate } from '@platform/bus';
import { addressFromPublicKey } from '@platform/crypto';
import { nodeCaFiles, readNodeCa } from '@platform/identity';
import type { KeyStore } from './keystore.js';
import { requestObject, username as usernameField } from './validate.js';

export function loadCa(config: Pick<NodeConfig, 'nodeCaCert' | 'nodeCaKey' | 'dataDir'>): NodeCa | null {
  if (config.nodeCaCert || config.nodeCaKey) {
    if (!config.nodeCaCert || !config.nodeCaKey) throw new Error('NODE_CA_CERT and NODE_CA_KEY must be given together');
    return readNodeCa({ cert: config.nodeCaCert, key: config.nodeCaKey });
  }
  const files = nodeCaFiles(config.dataDir);
  if (!existsSync(files.certFile) || !existsSync(files.keyFile)) return null;
  return readNodeCa({ cert: files.certFile, key: files.keyFile }, { cert: files.certFile, key: files.keyFile });
}

/**
 * Validity starts a little in the past: the registry checks it against the
 * block's time, and a block cut in the same second, or by a node whose clock
 * is slightly behind, must not find the certificate "not valid yet".
 */
const BACKDATE_MS = 5 * 60_000;
const VALIDITY_MS = 365 * 86_400_000;

const invalid = (field: string, message: string) => new PlatformError('VALIDATION_FAILED', `${field} ${message}`, { field });

function text(value: unknown, field: string, required: boolean): string | undefined {
  if (value === undefined || value === null || value === '') {
    if (required) throw invalid(field, 'is required');
    return undefined;
  }
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  if (value.length > 64) throw invalid(field, 'must be at most 64 characters (X.509 upper bound)');
  if (/\p{Cc}/u.test(value)) throw invalid(field, 'must not contain control characters');
  return value;
}

/** The subject's fields, named as createCert's body names them (`subject.organizationUnit`). */
function subjectOf(value: unknown): { commonName: string; organization: string; organizationalUnit?: string; country?: string } {
  const s = requestObject(value, 'subject');
  const commonName = text(s.commonName, 'subject.commonName', true)!;
  const organization = text(s.organization, 'subject.organization', true)!;
  const organizationalUnit = text(s.organizationalUnit ?? s.organizationUnit, 'subject.organizationUnit', false);
  const country = text(s.country, 'subject.country', false);
  if (country !== undefined && !/^[A-Z]{2}$/.test(country)) throw invalid('subject.country', 'must be two capital letters (ISO 3166)');
  return { commonName, organization, ...(organizationalUnit ? { organizationalUnit } : {}), ...(country ? { country } : {}) };
}

function publicKeyOf(value: unknown): Uint8Array {
  if (typeof value !== 'string' || value.trim() === '') throw invalid('subject.pubKey', 'is required: the PEM public key (secp256k1) the certificate is for');
  try {
    return toUncompressedPublicKey(value.trim());
  } catch (err) {
    if (err instanceof CertError && err.code === 'WRONG_CURVE') throw invalid('subject.pubKey', `is not a secp256k1 key: ${err.message}`);
    throw invalid('subject.pubKey', `is not a secp256k1 public key in PEM or hex: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** A certificate signed by the node's CA for a vault user's key (enrolment) or a given key (createCert). */
export async function issue(ca: NodeCa | null, store: KeyStore, request: unknown): Promise<IssuedCertificate> {
  if (!ca) throw new PlatformError('UNAVAILABLE', 'this node has no certificate authority: set NODE_CA_CERT and NODE_CA_KEY, or start it with the launcher, which creates one');
  const body = requestObject(request, 'cert-issue') as Partial<Record<keyof IssueRequest, unknown>>;
  const subject = subjectOf(body.subject);
  const publicKey = body.username !== undefined ? Uint8Array.from(Buffer.from((await store.get(usernameField(body.username))).pubkey, 'hex')) : publicKeyOf(body.publicKey);
  try {
    const notBefore = new Date(Date.now() - BACKDATE_MS);
    const notAfter = new Date(notBefore.getTime() + VALIDITY_MS);
    return { certificate: issueCertificate({ ...subject, publicKey }, ca, { notBefore, notAfter }), address: addressFromPublicKey(publicKey) };
  } catch (err) {
    if (err instanceof CertError) throw new PlatformError('VALIDATION_FAILED', `the certificate cannot be issued: ${err.message}`, { field: 'subject' });
    throw err;
  }
}
