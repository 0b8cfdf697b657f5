// The services' NATS credentials: one nkey per bus user, generated at a node's
// first start into a directory only its owner may read (0700, files 0600), or
// given by the operator. The server's configuration holds only the public
// keys; a seed never leaves its file and the process that connects with it.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createUser, fromSeed } from '@nats-io/nkeys';
import type { BusCredentials } from './connection.js';
import { BUS_USERS, type BusUser, type BusUserKey } from './permissions.js';

/** Where a user's seed is kept in a credentials directory. */
export function credentialsFile(dir: string, user: BusUser): string {
  return join(dir, `${user}.nk`);
}

/** A user's credentials as a credentials directory holds them, to connect with. */
export function readBusCredentials(dir: string, user: BusUser): BusCredentials {
  return { user, seed: readFileSync(credentialsFile(dir, user), 'utf8').trim() };
}

/** The public key (`U…`) of a seed; throws on anything that is not a user nkey seed. */
export function publicKeyOfSeed(seed: string): string {
  const key = fromSeed(new TextEncoder().encode(seed.trim()));
  const publicKey = key.getPublicKey();
  if (!publicKey.startsWith('U')) throw new Error('not a NATS user nkey seed (SU…)');
  return publicKey;
}

/**
 * The credentials directory's users with their public keys, creating a seed
 * for each user that has none. `create: false` (an operator's directory) only
 * reads, and names the first missing file.
 */
export function ensureBusCredentials(dir: string, options: { create?: boolean } = {}): Array<BusUserKey & { file: string }> {
  const create = options.create ?? true;
  if (create) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }
  return BUS_USERS.map((user) => {
    const file = credentialsFile(dir, user);
    if (!existsSync(file)) {
      if (!create) throw new Error(`no NATS credentials for ${user}: ${file} is missing`);
      writeFileSync(file, `${new TextDecoder().decode(createUser().getSeed())}\n`, { mode: 0o600 });
    }
    return { user, nkey: publicKeyOfSeed(readFileSync(file, 'utf8')), file };
  });
}
