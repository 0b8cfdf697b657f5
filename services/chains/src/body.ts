// A chain creation body (spec "Private chains") checked field by field and
// turned into the chain's genesis. Errors name the field by its path in the
// request (`[1].members[0].orgName`), as the other services do.
import { randomBytes } from 'node:crypto';
import type { ChainBody } from '@platform/bus';
import { GOVERNANCE_ADDRESS, PlatformError, type ChainMember, type Genesis, type ProtocolParams } from '@platform/common';
import { keccak256Hex } from '@platform/crypto';
import { chainGenesisText } from '@platform/common';

const MAX_LABEL = 256;
const MAX_MEMBERS = 1_000;
const MAX_BALANCES = 1_000;

function invalid(field: string, message: string): PlatformError {
  return new PlatformError('VALIDATION_FAILED', `${field} ${message}`, { field });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function text(v: unknown, field: string, { required = true, max = 1_000_000 } = {}): string | undefined {
  if (v === undefined || v === null || v === '') {
    if (required) throw invalid(field, 'is required');
    return undefined;
  }
  if (typeof v !== 'string') throw invalid(field, 'must be a string');
  if (v.length > max) throw invalid(field, `must be at most ${max} characters`);
  return v;
}

/** A chain ID as given: '' / null / absent / "main" is the main chain (null); else 64 hex, 0x optional. */
export function chainIdField(v: unknown, field: string): string | null {
  if (v === undefined || v === null || v === '' || v === 'main') return null;
  if (typeof v !== 'string') throw invalid(field, 'must be a chain ID (64 hex digits)');
  const body = v.replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]*$/.test(body)) throw new PlatformError('BAD_HEX', `${field} is not hexadecimal`, { field });
  if (body.length !== 64) throw invalid(field, `must be 32 bytes (64 hex digits), got ${body.length} digits`);
  return body.toLowerCase();
}

export function memberOf(v: unknown, field: string): ChainMember {
  if (!isObject(v)) throw invalid(field, 'must be an object {orgName, orgUnit?, commonName?, access}');
  const orgName = text(v.orgName, `${field}.orgName`, { max: 256 })!;
  const orgUnit = text(v.orgUnit, `${field}.orgUnit`, { required: false, max: 256 });
  const commonName = text(v.commonName, `${field}.commonName`, { required: false, max: 256 });
  if (v.access !== undefined && typeof v.access !== 'boolean') throw invalid(`${field}.access`, 'must be true or false');
  return { orgName, ...(orgUnit ? { orgUnit } : {}), ...(commonName ? { commonName } : {}), access: v.access !== false };
}

function balanceOf(v: unknown, field: string): { address: string; balance: string } {
  if (!isObject(v)) throw invalid(field, 'must be an object {address, balance}');
  if (typeof v.address !== 'string') throw invalid(`${field}.address`, 'is required');
  const address = v.address.replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]*$/.test(address)) throw new PlatformError('BAD_HEX', `${field}.address is not hexadecimal`, { field: `${field}.address` });
  if (address.length !== 40) throw invalid(`${field}.address`, `must be 20 bytes (40 hex digits), got ${address.length} digits`);
  const raw = typeof v.balance === 'number' || typeof v.balance === 'bigint' ? String(v.balance) : v.balance;
  if (typeof raw !== 'string' || !/^\d{1,78}$/.test(raw)) throw invalid(`${field}.balance`, 'must be a non-negative integer (a number or a decimal string)');
  return { address: address.toLowerCase(), balance: BigInt(raw).toString() };
}

export interface CheckedBody {
  label: string;
  contract: string;
  src: string;
  args: Record<string, unknown>;
  members: ChainMember[];
  balances: Array<{ address: string; balance: string }>;
  parentChain: string | null;
  /** `metadata.membersOnly`: transactions from non-members are refused as to an unknown chain */
  membersOnly: boolean;
}

/** The body's fields, checked; `at` is the body's path (`[0]`, or '' for a single chain). */
export function checkBody(v: unknown, at: string): CheckedBody {
  const f = (name: string) => (at ? `${at}.${name}` : name);
  if (!isObject(v)) throw invalid(at || 'body', 'must be a chain object {label, contract, src, args, members, balances, metadata, parentChain}');
  const body = v as Partial<ChainBody> & Record<string, unknown>;
  const label = text(body.label, f('label'), { max: MAX_LABEL })!;
  const contract = text(body.contract, f('contract'), { max: 256 })!;
  const src = text(body.src, f('src'))!;
  if (body.args !== undefined && body.args !== null && !isObject(body.args)) throw invalid(f('args'), 'must be an object of constructor arguments');
  if (body.metadata !== undefined && body.metadata !== null && !isObject(body.metadata)) throw invalid(f('metadata'), 'must be an object');
  const vm = body.metadata?.VM;
  if (vm !== undefined && vm !== 'SolidVM' && vm !== 'EVM') throw invalid(f('metadata.VM'), 'must be "SolidVM" or "EVM"');
  // block 0 runs SolidVM only: an EVM governance contract could never start
  if (vm === 'EVM') throw new PlatformError('GOVERNANCE_VM_UNSUPPORTED', `${f('metadata.VM')}: governance contracts run on SolidVM on this platform; send metadata.VM "SolidVM"`, { field: f('metadata.VM') });
  const membersOnly = flag(body.metadata?.membersOnly, f('metadata.membersOnly'));
  const members = body.members ?? [];
  if (!Array.isArray(members)) throw invalid(f('members'), 'must be an array of members');
  if (members.length > MAX_MEMBERS) throw invalid(f('members'), `must hold at most ${MAX_MEMBERS} members`);
  const balances = body.balances ?? [];
  if (!Array.isArray(balances)) throw invalid(f('balances'), 'must be an array of {address, balance}');
  if (balances.length > MAX_BALANCES) throw invalid(f('balances'), `must hold at most ${MAX_BALANCES} entries`);
  const checkedBalances = balances.map((b, i) => balanceOf(b, `${f('balances')}[${i}]`));
  const seen = new Set<string>();
  checkedBalances.forEach((b, i) => {
    if (seen.has(b.address)) throw invalid(`${f('balances')}[${i}].address`, `repeats ${b.address}`);
    seen.add(b.address);
  });
  return {
    label,
    contract,
    src,
    args: (body.args as Record<string, unknown> | undefined) ?? {},
    members: members.map((m, i) => memberOf(m, `${f('members')}[${i}]`)),
    balances: checkedBalances,
    parentChain: chainIdField(body.parentChain, f('parentChain')),
    membersOnly,
  };
}

/** A boolean option: true/false, or their text (metadata values are often strings); absent is false. */
function flag(v: unknown, field: string): boolean {
  if (v === undefined || v === null || v === false || v === 'false') return false;
  if (v === true || v === 'true') return true;
  throw invalid(field, 'must be true or false');
}

const sameMember = (a: ChainMember, b: ChainMember) => a.orgName === b.orgName && (a.orgUnit ?? '') === (b.orgUnit ?? '') && (a.commonName ?? '') === (b.commonName ?? '');

/**
 * The chain's genesis: the creator is a member (docs/conventions.md "Private
 * chains"), and `nonce` is 32 random bytes, so two chains created with the
 * same body get different IDs.
 */
export function genesisOf(body: CheckedBody, creator: { address: string; member: ChainMember | null }, protocol: ProtocolParams, now = Date.now()): Genesis {
  const members = [...body.members];
  if (creator.member && !members.some((m) => m.access && sameMember(m, creator.member!))) members.push(creator.member);
  const genesis: Genesis = {
    format: 1,
    chainId: '',
    label: body.label,
    timestamp: Math.floor(now / 1000),
    parentChain: body.parentChain,
    nonce: randomBytes(32).toString('hex'),
    protocol,
    trustedRoots: [],
    accounts: body.balances,
    contracts: [{ address: GOVERNANCE_ADDRESS, name: body.contract, vm: 'SolidVM', src: body.src, args: body.args }],
    members,
    creator: creator.address,
    // only when set: a default chain's genesis keeps the form (and so the hashing) it always had
    ...(body.membersOnly ? { membersOnly: true as const } : {}),
  };
  return { ...genesis, chainId: keccak256Hex(chainGenesisText(genesis)) };
}
