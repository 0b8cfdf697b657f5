// Cirrus's PostgreSQL schema `cirrus`: migrated at every start under an
// advisory lock (instances starting together migrate one after the other).
// The fixed tables are the catalogue (`cirrus.tables`, `cirrus.names`: API
// name → internal SQL identifier and columns), the contract accounts and
// the consumer's progress; the indexed
// tables themselves (`cirrus.c_<n>`) are created by the indexer as contracts
// appear, never named after anything a user wrote.
import { CATALOGUE_CHANNEL, grantReadAccess } from '@platform/cirrus-read';
import { createPool as createPgPool, dropSchema, inTransaction, migrateSchema, type Db, type Migration } from '@platform/pg';

export { inTransaction, type Client, type Db } from '@platform/pg';

const MIGRATION_LOCK = 0x63697272; // "cirr"

// Append only: an applied migration is never edited; a change is a new entry.
const MIGRATIONS: Migration[] = [
  {
    sql: `CREATE TABLE cirrus.progress (
     consumer text PRIMARY KEY,
     last_seq bigint NOT NULL
   );
   CREATE SEQUENCE cirrus.table_ids;
   CREATE TABLE cirrus.tables (
     api_name text PRIMARY KEY,
     sql_name text NOT NULL UNIQUE,
     kind text NOT NULL CHECK (kind IN ('contract', 'history', 'event')),
     contract text NOT NULL,
     columns jsonb NOT NULL,
     created_seq bigint NOT NULL
   );
   CREATE TABLE cirrus.contracts (
     address text NOT NULL,
     chain_id text NOT NULL,
     contract text NOT NULL,
     PRIMARY KEY (address, chain_id)
   );`,
  },
  {
    // table families and versions, side tables, the names tables answer to
    rebuild: true,
    sql: `DROP TABLE cirrus.tables;
   DROP TABLE cirrus.contracts;
   -- every indexed table: internal name, family (the API base name), version
   -- (0 for event tables), kind, member (event or variable of a side table),
   -- bare contract name, columns as [apiName, sqlName, type, origin] in
   -- select-* order, and a contract table's variables with their shapes
   CREATE TABLE cirrus.tables (
     sql_name text PRIMARY KEY,
     family text NOT NULL,
     version integer NOT NULL,
     kind text NOT NULL CHECK (kind IN ('contract', 'history', 'event', 'side')),
     member text NOT NULL,
     contract text NOT NULL,
     columns jsonb NOT NULL,
     vars jsonb NOT NULL,
     created_seq bigint NOT NULL,
     UNIQUE (family, version, kind, member)
   );
   CREATE INDEX ON cirrus.tables (contract) WHERE kind = 'contract';
   -- every API name and the table it designates
   CREATE TABLE cirrus.names (
     api_name text PRIMARY KEY,
     sql_name text NOT NULL REFERENCES cirrus.tables (sql_name)
   );
   -- every contract account created and its table (NULL: not indexed, e.g. EVM
   -- without INDEX_EVM); a selfdestruct's state change may not name the contract any more
   CREATE TABLE cirrus.contracts (
     address text NOT NULL,
     chain_id text NOT NULL,
     sql_name text,
     PRIMARY KEY (address, chain_id)
   );`,
  },
  {
    // contract-typed variables now record the contract they refer to (embeds,
    // and NULL for a reference to a contract that does not exist)
    rebuild: true,
    sql: 'SELECT 1',
  },
];

export function createPool(databaseUrl: string): Db {
  return createPgPool(databaseUrl, { applicationName: 'cirrus', max: 10 });
}

const SCHEMA = { schema: 'cirrus', lock: MIGRATION_LOCK, migrations: MIGRATIONS };

/**
 * Brings the schema up to date; answers whether the read model must be
 * rebuilt from the stream (a migration changed its shape on an existing
 * schema: the schema was dropped and created anew, the caller replays `exec.*`).
 * With `readRole`, that role is granted read access to the schema and every
 * table in it, present and future (@platform/cirrus-read `grantReadAccess`),
 * in the same transaction, under the same lock.
 */
export async function migrate(pool: Db, options: { readRole?: string | null } = {}): Promise<{ rebuild: boolean }> {
  const { rebuilt } = await inTransaction(pool, async (client) => {
    const result = await migrateSchema(client, SCHEMA);
    if (options.readRole) await grantReadAccess(client, options.readRole);
    // readers (other instances, the gateway) forget the tables they knew: they are gone
    if (result.rebuilt) await client.query(`NOTIFY ${CATALOGUE_CHANNEL}`);
    return result;
  });
  return { rebuild: rebuilt };
}

/** The read model gone: the schema dropped and created empty (for a rebuild from the stream). */
export async function dropReadModel(pool: Db): Promise<void> {
  await inTransaction(pool, async (client) => {
    await dropSchema(client, SCHEMA);
    await client.query(`NOTIFY ${CATALOGUE_CHANNEL}`);
  });
}
