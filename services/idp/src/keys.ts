// The provider's signing keys. They are generated on first start and kept in
// the data dir, so tokens issued before a restart still verify after it (a
// verifier caches the JWKS, and users keep their tokens for an hour).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';

export interface Jwks {
  keys: JWK[];
}

/** RS256 signs the access tokens (oidc-provider's default); ES256 is published too, for clients that prefer it. */
const ALGORITHMS = ['RS256', 'ES256'] as const;

export function keysFile(dataDir: string): string {
  return join(dataDir, 'idp', 'jwks.json');
}

export async function loadOrCreateKeys(dataDir: string): Promise<Jwks> {
  const file = keysFile(dataDir);
  try {
    return parseJwks(await readFile(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const jwks: Jwks = { keys: await Promise.all(ALGORITHMS.map(generateKey)) };
  await mkdir(join(dataDir, 'idp'), { recursive: true, mode: 0o700 });
  try {
    // private keys: readable by the owner only; 'wx' so that two processes
    // starting at once cannot overwrite each other's keys
    await writeFile(file, JSON.stringify(jwks, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return parseJwks(await readFile(file, 'utf8'), file);
    throw err;
  }
  return jwks;
}

async function generateKey(alg: (typeof ALGORITHMS)[number]): Promise<JWK> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const kid = await calculateJwkThumbprint(await exportJWK(publicKey));
  return { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };
}

function parseJwks(text: string, file: string): Jwks {
  let jwks: unknown;
  try {
    jwks = JSON.parse(text);
  } catch {
    jwks = null;
  }
  const keys = (jwks as Jwks | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k?.kty === 'string' && typeof k.kid === 'string')) {
    throw new Error(`${file} is not a JSON Web Key Set; delete it to generate new keys (tokens issued so far will then stop verifying)`);
  }
  return { keys };
}
