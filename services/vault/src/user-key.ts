// How a user's private key is stored: sealed with the vault's master key,
// bound to the row's address (envelope.ts), so that a sealed key copied to
// another row does not open.
import { open, seal } from './envelope.js';

/** The associated data of a user's sealed key. */
export const userKeyAad = (address: string) => `vault:user-key:${address}`;

export function sealUserKey(masterKey: Buffer, privateKey: Uint8Array, address: string): Buffer {
  return seal(masterKey, privateKey, userKeyAad(address));
}

/** The private key, or null when the sealed key does not open with this master key for this address. */
export function openUserKey(masterKey: Buffer, sealed: Buffer, address: string): Buffer | null {
  return open(masterKey, sealed, userKeyAad(address));
}

/** A sealed key moved from one master key to another (the password's rotation); throws when it does not open with the first. */
export function resealUserKey(sealed: Buffer, address: string, from: Buffer, to: Buffer): Buffer {
  const privateKey = openUserKey(from, sealed, address);
  if (privateKey === null) throw new Error(`the stored key of ${address} does not open with the current master key: the database was altered`);
  return sealUserKey(to, privateKey, address);
}
