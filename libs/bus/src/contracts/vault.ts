// The vault's endpoints. Usernames are the token's username claim, as the
// gateway established it; the vault trusts the bus (only node services are on it).
import { defineEndpoint } from '../rpc.js';
import { SERVICE_NAMES, SUBJECTS } from '../subjects.js';

export interface KeyRecord {
  username: string;
  /** 40 hex, no 0x */
  address: string;
  /** 65-byte uncompressed public key, 130 hex starting with 04 */
  pubkey: string;
}

export interface SignRequest {
  username: string;
  /** 32-byte hash, hex with or without 0x */
  msgHash: string;
}

export interface SignatureRecord {
  /** 64 hex each */
  r: string;
  s: string;
  /** 27 or 28 */
  v: number;
}

export interface UsersRequest {
  address?: string;
  limit?: number;
  offset?: number;
}

export interface UserRecord {
  username: string;
  address: string;
}

export const VAULT = {
  /** creates the user's key; USER_EXISTS when there is one */
  keyCreate: defineEndpoint<{ username: string }, KeyRecord>(SERVICE_NAMES.vault, 'key-create', SUBJECTS.vault.keyCreate),
  /** USER_NOT_FOUND when the user has no key */
  keyGet: defineEndpoint<{ username: string }, KeyRecord>(SERVICE_NAMES.vault, 'key-get', SUBJECTS.vault.keyGet),
  /** signs with the user's key; the key never leaves the vault */
  sign: defineEndpoint<SignRequest, SignatureRecord>(SERVICE_NAMES.vault, 'sign', SUBJECTS.vault.sign),
  users: defineEndpoint<UsersRequest, UserRecord[]>(SERVICE_NAMES.vault, 'users', SUBJECTS.vault.users),
} as const;
