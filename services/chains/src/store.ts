// The chains and their members in PostgreSQL. A user sees a chain when one of
// its member entries with access admits the user: the entry's organization is
// the user's, and its unit and common name are empty (any) or the user's.
import type { ChainRecord } from '@platform/bus';
import { GOVERNANCE_ADDRESS, type ChainMember, type Genesis, type ProtocolParams } from '@platform/common';
import type { Client, Db } from './db.js';
import type { UserFacts } from './who.js';

type Queryable = Db | Client;

/** Stores a chain and its genesis members; a chain stored before (the genesis consumer, a retry) keeps its members. */
export async function insertChain(client: Client, genesis: Genesis, codeHash: string): Promise<void> {
  // the genesis consumer stores a chain without its code hash (block 0 brings it): a creation that comes second fills it in
  const { rows } = await client.query<{ inserted: boolean }>(
    `INSERT INTO chains.chains (chain_id, genesis, code_hash, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (chain_id) DO UPDATE SET code_hash = EXCLUDED.code_hash WHERE chains.chains.code_hash = '' AND EXCLUDED.code_hash <> ''
     RETURNING (xmax = 0) AS inserted`,
    [genesis.chainId, JSON.stringify(genesis), codeHash, genesis.timestamp],
  );
  if (!rows[0]?.inserted) return;
  for (const m of genesis.members) await addMember(client, genesis.chainId, m);
}

export async function addMember(client: Client, chainId: string, m: ChainMember): Promise<void> {
  await client.query(
    `INSERT INTO chains.members (chain_id, org_name, org_unit, common_name, access) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (chain_id, org_name, org_unit, common_name) DO UPDATE SET access = EXCLUDED.access`,
    [chainId, m.orgName, m.orgUnit ?? '', m.commonName ?? '', m.access],
  );
}

/**
 * Every chain's membership back to its genesis, no governance event applied
 * (the node's `--rebuild`, docs/network.md "Rebuilding a node from the
 * network"): the events are applied again, in block order, from the results
 * the block service publishes anew; one from a block the network replaced
 * would otherwise stay. Answers how many chains were reset.
 */
export async function resetMembership(client: Client): Promise<number> {
  const { rows } = await client.query<{ chain_id: string; genesis: Genesis }>('SELECT chain_id, genesis FROM chains.chains');
  await client.query('DELETE FROM chains.members');
  await client.query('UPDATE chains.chains SET applied_height = -1');
  for (const { chain_id: chainId, genesis } of rows) for (const m of genesis.members) await addMember(client, chainId, m);
  return rows.length;
}

/**
 * Removes the entries an event names and every narrower one under them:
 * removing an organization removes its units and users, removing a unit its
 * users (a removed organization must not stay in through a narrower entry).
 */
export async function removeMembers(client: Client, chainId: string, orgName: string, orgUnit?: string, commonName?: string): Promise<void> {
  const conditions = ['chain_id = $1', 'org_name = $2'];
  const values: string[] = [chainId, orgName];
  if (orgUnit !== undefined && orgUnit !== '') conditions.push(`org_unit = $${values.push(orgUnit)}`);
  if (commonName !== undefined && commonName !== '') conditions.push(`common_name = $${values.push(commonName)}`);
  await client.query(`DELETE FROM chains.members WHERE ${conditions.join(' AND ')}`, values);
}

const MEMBER_ADMITS = `m.access AND m.org_name = $1 AND (m.org_unit = '' OR m.org_unit = $2) AND (m.common_name = '' OR m.common_name = $3)`;

/** The private chains a user may see, oldest first. */
export async function visibleChainIds(db: Queryable, facts: UserFacts): Promise<string[]> {
  if (!facts.organization) return [];
  const { rows } = await db.query<{ chain_id: string }>(
    `SELECT c.chain_id FROM chains.chains c
      WHERE EXISTS (SELECT 1 FROM chains.members m WHERE m.chain_id = c.chain_id AND ${MEMBER_ADMITS})
      ORDER BY c.created_at, c.chain_id`,
    [facts.organization, facts.organizationalUnit, facts.commonName],
  );
  return rows.map((r) => r.chain_id);
}

/** Whether one of the chain's member entries admits the user. */
export async function isMember(db: Queryable, chainId: string, facts: UserFacts): Promise<boolean> {
  if (!facts.organization) return false;
  const { rowCount } = await db.query(`SELECT 1 FROM chains.members m WHERE m.chain_id = $4 AND ${MEMBER_ADMITS} LIMIT 1`, [
    facts.organization,
    facts.organizationalUnit,
    facts.commonName,
    chainId,
  ]);
  return (rowCount ?? 0) > 0;
}

/** What admission needs of a stored chain: whether it is members-only, and its protocol parameters; null when it does not exist. */
export async function chainRules(db: Queryable, chainId: string): Promise<{ membersOnly: boolean; protocol: ProtocolParams } | null> {
  const { rows } = await db.query<{ members_only: boolean; protocol: ProtocolParams }>(
    `SELECT coalesce((genesis->>'membersOnly')::boolean, false) AS members_only, genesis->'protocol' AS protocol FROM chains.chains WHERE chain_id = $1`,
    [chainId],
  );
  return rows[0] ? { membersOnly: rows[0].members_only, protocol: rows[0].protocol } : null;
}

export async function chainExists(db: Queryable, chainId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM chains.chains WHERE chain_id = $1', [chainId]);
  return (rowCount ?? 0) > 0;
}

/** The spec's records of these chains, in the order given. */
export async function chainRecords(db: Queryable, chainIds: string[]): Promise<ChainRecord[]> {
  if (chainIds.length === 0) return [];
  const chains = await db.query<{ chain_id: string; genesis: Genesis; code_hash: string }>('SELECT chain_id, genesis, code_hash FROM chains.chains WHERE chain_id = ANY($1)', [chainIds]);
  const members = await db.query<{ chain_id: string; org_name: string; org_unit: string; common_name: string; access: boolean }>(
    'SELECT chain_id, org_name, org_unit, common_name, access FROM chains.members WHERE chain_id = ANY($1) ORDER BY org_name, org_unit, common_name',
    [chainIds],
  );
  const byChain = new Map<string, ChainMember[]>();
  for (const m of members.rows) {
    const list = byChain.get(m.chain_id) ?? [];
    list.push({ orgName: m.org_name, ...(m.org_unit ? { orgUnit: m.org_unit } : {}), ...(m.common_name ? { commonName: m.common_name } : {}), access: m.access });
    byChain.set(m.chain_id, list);
  }
  const rows = new Map(chains.rows.map((r) => [r.chain_id, r]));
  return chainIds.flatMap((id) => {
    const row = rows.get(id);
    return row ? [recordOf(row.genesis, row.code_hash, byChain.get(id) ?? [])] : [];
  });
}

function recordOf(g: Genesis, codeHash: string, members: ChainMember[]): ChainRecord {
  const governance = g.contracts[0];
  return {
    id: g.chainId,
    info: {
      label: g.label,
      members,
      accountInfo: [
        ...g.accounts.map((a) => ({ address: a.address, balance: a.balance })),
        { address: GOVERNANCE_ADDRESS, balance: '0', contractName: governance.name, codeHash },
      ],
      nonce: g.nonce,
      codeInfo: [{ name: governance.name, vm: governance.vm, src: governance.src, codeHash }],
      parentChain: g.parentChain,
      balances: g.accounts,
      creator: g.creator ?? '',
      createdAt: g.timestamp,
      membersOnly: g.membersOnly === true,
    },
  };
}
