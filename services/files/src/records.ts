// A file's record, read from cirrus (so it survives restarts and is what the
// chain holds): the FileManager's row, its memberships, versions and their
// attestations, and its history for ownership transfers.
//
// Each contract is read across its table families by the addresses the
// file's manager holds (cirrus.ts).
//
// A FileManager is the file's only if it runs the file application's code
// (its code hash, compared through the block service), and of two with the
// same fileKey the first created is the file: a contract of other code, or
// one made later with a copied fileKey, cannot claim another's content.
import { FILE_APP_SOURCE } from './contracts.js';
import { num, text, type CirrusReader, type Row } from './cirrus.js';
import type { User } from './ledger.js';

export interface Attested {
  attestor: string;
  timestamp: number;
}

export interface Version {
  version: number;
  fileHash: string;
  comments: string;
  uploadedBy: string;
  timestamp: number;
  uri: string;
  attestations: Attested[];
}

export type AuditEntry =
  | { timestamp: number; action: 'VERSION_ADDED'; version: number; uploadedBy: string }
  | { timestamp: number; action: 'MEMBER_ADDED' | 'MEMBER_REMOVED'; member: string }
  | { timestamp: number; action: 'ATTESTED'; version: number; attestor: string }
  | { timestamp: number; action: 'OWNERSHIP_TRANSFERRED'; from: string; to: string };

/** The record the routes answer (`data`). */
export interface FileRecord {
  fileKey: string;
  fileName: string;
  fileDescription: string;
  /** the FileManager contract */
  address: string;
  /** '' on the main chain */
  chainId: string;
  owner: string;
  members: string[];
  createdAt: number;
  lastActivityAt: number;
  versions: Version[];
  auditLog: AuditEntry[];
}

/** cirrus's `block_timestamp` (`YYYY-MM-DD HH:MM:SS UTC`) in seconds, the unit of the contracts' timestamps */
const blockSeconds = (v: unknown) => Math.floor(Date.parse(text(v).replace(' UTC', 'Z').replace(' ', 'T')) / 1000);

const APP = { src: FILE_APP_SOURCE, contract: 'FileManager' };
/** the most files a listing reads */
const LIST_LIMIT = 200;

/** A line of the caller's files (`GET /api/v1/files`, beyond the spec: the page lists them). */
export interface FileSummary {
  fileKey: string;
  fileName: string;
  fileDescription: string;
  owner: string;
  numVersions: number;
  lastActivityAt: number;
}

/** Rank of an action among those of one block: initialize shares before it adds version 1, a transfer shares before the owner changes. */
const RANK: Record<AuditEntry['action'], number> = { MEMBER_ADDED: 0, VERSION_ADDED: 1, ATTESTED: 2, MEMBER_REMOVED: 3, OWNERSHIP_TRANSFERRED: 4 };

export class Records {
  constructor(private readonly cirrus: CirrusReader) {}

  /** The file's manager row, or null when there is no such file for this user. */
  async manager(user: User, fileKey: string, chainId: string, requestId: string): Promise<Row | null> {
    const rows = await this.cirrus.across(user, 'FileManager', (f) => f, `fileKey=eq.${encodeURIComponent(fileKey)}&chainId=eq.${chainId}`, requestId);
    const genuine = [];
    for (const row of rows) if (await this.cirrus.runs(user, APP, text(row.address), chainId, requestId)) genuine.push(row);
    genuine.sort((a, b) => num(a.createdAt) - num(b.createdAt) || num(a.block_number) - num(b.block_number) || text(a.address).localeCompare(text(b.address)));
    return genuine[0] ?? null;
  }

  /** The whole record of the file, or null when there is none for this user. */
  async record(user: User, fileKey: string, chainId: string, requestId: string): Promise<FileRecord | null> {
    const fm = await this.manager(user, fileKey, chainId, requestId);
    if (!fm) return null;
    const address = text(fm.address);
    const [membershipsOf, versionsOf, history] = await Promise.all([
      this.cirrus.elements(user, 'FileManager', 'memberships', [address], chainId, requestId),
      this.cirrus.elements(user, 'FileManager', 'fileVersions', [address], chainId, requestId),
      this.cirrus.across(user, 'FileManager', (f) => `history@${f}`, `address=eq.${address}&chainId=eq.${chainId}&select=owner,numVersions,block_number,block_timestamp&order=block_number.asc`, requestId),
    ]);
    const membershipAddresses = membershipsOf.get(address) ?? [];
    const versionAddresses = versionsOf.get(address) ?? [];
    const [membershipRows, versionRows, attestationsOf] = await Promise.all([
      this.cirrus.contractsAt(user, 'Membership', membershipAddresses, chainId, requestId),
      this.cirrus.contractsAt(user, 'ExternalFile', versionAddresses, chainId, requestId),
      this.cirrus.elements(user, 'ExternalFile', 'attestations', versionAddresses, chainId, requestId),
    ]);
    const attestationRows = await this.cirrus.contractsAt(user, 'Attestation', [...attestationsOf.values()].flat(), chainId, requestId);
    const byAddress = (rows: Row[]) => new Map(rows.map((r) => [text(r.address), r]));
    const memberships = byAddress(membershipRows);
    const versionByAddress = byAddress(versionRows);
    const attestationByAddress = byAddress(attestationRows);

    // the block each version was added in: where the manager's numVersions first reached it
    const versionBlock = new Map<number, number>();
    for (const h of history) for (let v = 1; v <= num(h.numVersions); v++) if (!versionBlock.has(v)) versionBlock.set(v, num(h.block_number));

    const log: Array<{ entry: AuditEntry; block: number }> = [];
    const owner = text(fm.owner);
    const members: string[] = [owner];
    for (const at of membershipAddresses) {
      const m = memberships.get(at);
      if (!m) continue;
      const member = text(m.member);
      const action = text(m.action) === 'MEMBER_REMOVED' ? 'MEMBER_REMOVED' : 'MEMBER_ADDED';
      if (action === 'MEMBER_ADDED' && !members.includes(member)) members.push(member);
      if (action === 'MEMBER_REMOVED' && member !== owner && members.includes(member)) members.splice(members.indexOf(member), 1);
      log.push({ entry: { timestamp: num(m.timestamp), action, member }, block: num(m.block_number) });
    }
    const versions: Version[] = [];
    for (const at of versionAddresses) {
      const v = versionByAddress.get(at);
      if (!v) continue;
      const version = num(v.version);
      const attestations: Attested[] = [];
      for (const a of attestationsOf.get(at) ?? []) {
        const row = attestationByAddress.get(a);
        if (!row) continue;
        attestations.push({ attestor: text(row.attestor), timestamp: num(row.timestamp) });
        log.push({ entry: { timestamp: num(row.timestamp), action: 'ATTESTED', version, attestor: text(row.attestor) }, block: num(row.block_number) });
      }
      versions.push({ version, fileHash: text(v.fileHash), comments: text(v.comments), uploadedBy: text(v.uploadedBy), timestamp: num(v.timestamp), uri: text(v.uri), attestations });
      log.push({ entry: { timestamp: num(v.timestamp), action: 'VERSION_ADDED', version, uploadedBy: text(v.uploadedBy) }, block: versionBlock.get(version) ?? num(v.block_number) });
    }
    let previous: string | null = null;
    for (const h of history) {
      const now = text(h.owner);
      if (previous !== null && now !== previous) log.push({ entry: { timestamp: blockSeconds(h.block_timestamp), action: 'OWNERSHIP_TRANSFERRED', from: previous, to: now }, block: num(h.block_number) });
      previous = now;
    }
    log.sort((a, b) => a.entry.timestamp - b.entry.timestamp || a.block - b.block || RANK[a.entry.action] - RANK[b.entry.action]);
    versions.sort((a, b) => a.version - b.version);
    return {
      fileKey: text(fm.fileKey),
      fileName: text(fm.fileName),
      fileDescription: text(fm.fileDescription),
      address,
      chainId,
      owner,
      members,
      createdAt: num(fm.createdAt),
      lastActivityAt: num(fm.lastActivityAt),
      versions,
      auditLog: log.map((l) => l.entry),
    };
  }

  /**
   * The files `me` is a member of, most recently active first: the keys of
   * the memberships that name them (at most LIST_LIMIT), each record then
   * read and checked as a single file's is — a membership is only where to look.
   */
  async list(user: User, me: string, chainId: string, requestId: string): Promise<FileSummary[]> {
    const rows = await this.cirrus.across(user, 'Membership', (f) => f, `member=eq.${me}&chainId=eq.${chainId}&select=fileKey&order=timestamp.desc&limit=${LIST_LIMIT}`, requestId);
    const keys = [...new Set(rows.map((r) => text(r.fileKey)))].slice(0, LIST_LIMIT);
    const records = await Promise.all(keys.map((key) => this.record(user, key, chainId, requestId)));
    return records
      .filter((r): r is FileRecord => r !== null && r.members.includes(me))
      .sort((a, b) => b.lastActivityAt - a.lastActivityAt)
      .map((r) => ({ fileKey: r.fileKey, fileName: r.fileName, fileDescription: r.fileDescription, owner: r.owner, numVersions: r.versions.length, lastActivityAt: r.lastActivityAt }));
  }

  /** Whether cirrus shows any of these contracts of `contract` yet (its blocks are indexed after they are applied). */
  async indexed(user: User, contract: string, addresses: string[], chainId: string, requestId: string): Promise<boolean> {
    return (await this.cirrus.contractsAt(user, contract, addresses, chainId, requestId)).length > 0;
  }
}
