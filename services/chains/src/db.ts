// The chains service's PostgreSQL schema `chains`, migrated at start under an
// advisory lock (instances starting together migrate one after the other).
import { createPool as createPgPool, inTransaction, migrateSchema, type Db } from '@platform/pg';

export { inTransaction, type Client, type Db } from '@platform/pg';

const MIGRATION_LOCK = 0x63686e73; // "chns"

// Append only: an applied migration is never edited; a change is a new entry.
const MIGRATIONS: string[] = [
  `-- one row per private chain: its genesis exactly as published (the text its ID hashes is derived from it)
   CREATE TABLE chains.chains (
     chain_id text PRIMARY KEY,
     genesis jsonb NOT NULL,
     code_hash text NOT NULL,
     created_at bigint NOT NULL,
     -- the last block whose governance events are applied (-1: none): a redelivered block changes nothing
     applied_height bigint NOT NULL DEFAULT -1
   );
   CREATE INDEX ON chains.chains (created_at, chain_id);
   -- who may see a chain now: '' stands for "any" in org_unit and common_name
   CREATE TABLE chains.members (
     chain_id text NOT NULL REFERENCES chains.chains ON DELETE CASCADE,
     org_name text NOT NULL,
     org_unit text NOT NULL DEFAULT '',
     common_name text NOT NULL DEFAULT '',
     access boolean NOT NULL,
     PRIMARY KEY (chain_id, org_name, org_unit, common_name)
   );
   CREATE INDEX ON chains.members (org_name) WHERE access;`,
];

export function createPool(databaseUrl: string): Db {
  return createPgPool(databaseUrl, { applicationName: 'chains', max: 5 });
}

export async function migrate(pool: Db): Promise<void> {
  await inTransaction(pool, (client) => migrateSchema(client, { schema: 'chains', lock: MIGRATION_LOCK, migrations: MIGRATIONS }));
}
