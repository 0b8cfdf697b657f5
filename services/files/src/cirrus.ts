// Reads of cirrus for the files service. Cirrus names a contract's table by
// its creator's organization (`<org>-FileManager`, `<org>-FileManager-ExternalFile`,
// …): a file's versions, memberships and attestations land in the tables of
// whoever made them. So a contract is read across its table families — the
// one table a bare name resolves to, or each one the 409 lists —, and by the
// addresses a trusted contract holds, never by a field anyone could set.
import { CIRRUS, call, type NatsConnection } from '@platform/bus';
import { PlatformError } from '@platform/common';
import type { Ledger, User } from './ledger.js';

export type Row = Record<string, unknown>;

export const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
export const num = (v: unknown) => Number(v ?? 0);
const inList = (values: string[]) => `in.(${values.join(',')})`;

export class CirrusReader {
  /** contracts known to run a source's code, by chain, address and source hash (code never changes) */
  private readonly genuine = new Map<string, boolean>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly ledger: Ledger,
  ) {}

  /** The rows of one cirrus table, or [] when it does not exist (for this user). */
  async rows(user: User, table: string, query: string, requestId: string): Promise<Row[]> {
    try {
      const answer = await call(this.nc, CIRRUS.search, { table, query, username: user.username, organization: user.organization }, { requestId });
      return JSON.parse(answer.rows) as Row[];
    } catch (err) {
      if (err instanceof PlatformError && err.code === 'TABLE_NOT_FOUND') return [];
      throw err;
    }
  }

  /** The table families of a contract the user may see: `[contract]` when its bare name names one, the families a 409 lists, or none. */
  private async families(user: User, contract: string, requestId: string): Promise<string[]> {
    try {
      await call(this.nc, CIRRUS.search, { table: contract, query: 'limit=0', username: user.username, organization: user.organization }, { requestId });
      return [contract];
    } catch (err) {
      if (err instanceof PlatformError && err.code === 'TABLE_NOT_FOUND') return [];
      if (err instanceof PlatformError && err.code === 'TABLE_AMBIGUOUS' && Array.isArray(err.details?.tables)) return err.details.tables as string[];
      throw err;
    }
  }

  /**
   * Rows of `contract`'s tables (`table(family)` names the table of each
   * family), each with the family it came from. A bare name that named one
   * family can name two a moment later (another organization's first
   * contract indexed meanwhile): its 409 then is a reason to look again.
   */
  async across(user: User, contract: string, table: (family: string) => string, query: string, requestId: string): Promise<Array<Row & { family: string }>> {
    for (let attempt = 1; ; attempt++) {
      const families = await this.families(user, contract, requestId);
      try {
        const found = await Promise.all(families.map(async (family) => (await this.rows(user, table(family), query, requestId)).map((row) => ({ ...row, family }))));
        return found.flat();
      } catch (err) {
        const raced = err instanceof PlatformError && err.code === 'TABLE_AMBIGUOUS' && families.length === 1 && families[0] === contract;
        if (!raced || attempt === 3) throw err;
      }
    }
  }

  /** Rows of contract `contract` at these addresses on the chain. */
  async contractsAt(user: User, contract: string, addresses: string[], chainId: string, requestId: string): Promise<Row[]> {
    if (addresses.length === 0) return [];
    return this.across(user, contract, (f) => f, `address=${inList(addresses)}&chainId=eq.${chainId}`, requestId);
  }

  /** Elements of an array variable of the contracts at these addresses, in index order per contract. */
  async elements(user: User, contract: string, variable: string, addresses: string[], chainId: string, requestId: string): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (addresses.length === 0) return out;
    const rows = await this.across(user, contract, (f) => `${f}-${variable}`, `address=${inList(addresses)}&chainId=eq.${chainId}&select=address,index,value&order=index.asc`, requestId);
    rows.sort((a, b) => num(a.index) - num(b.index));
    for (const row of rows) {
      const list = out.get(text(row.address)) ?? [];
      list.push(text(row.value));
      out.set(text(row.address), list);
    }
    return out;
  }

  /** Whether the contract at `address` runs `source`'s code (a contract of other code could hold any fields). */
  async runs(user: User, source: { src: string; contract: string }, address: string, chainId: string, requestId: string): Promise<boolean> {
    const expected = await this.ledger.codeHashOf(source.src, source.contract, requestId);
    const key = `${chainId}:${address}:${expected}`;
    const known = this.genuine.get(key);
    if (known !== undefined) return known;
    const actual = await this.ledger.codeHashAt(user, address, chainId, requestId);
    // not in the state this node applied yet (cirrus is not ahead of it, but be safe): asked again next time
    if (actual === null) return false;
    this.genuine.set(key, actual === expected);
    return actual === expected;
  }
}
