// What a read role may do in cirrus's schema: use it and SELECT from every
// table in it, those cirrus creates later included (default privileges of
// the role that creates them: the grant is part of each CREATE TABLE, so a
// table is readable in the very transaction that adds it to the catalogue).
// Nothing else: no INSERT, UPDATE, DELETE, TRUNCATE, DDL, nor any other schema.
import type { Queryable } from './catalogue.js';
import { SCHEMA } from './catalogue.js';

/** A role name as it may be spliced into GRANT (an identifier cannot be a bound value). */
export const READ_ROLE_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Grants `role` read access to the schema `cirrus`, as its owner (cirrus, at
 * every start, after migrating: a schema dropped and made anew by a rebuild
 * has lost its grants). Run it under the migration lock: concurrent GRANTs on
 * one object can fail with "tuple concurrently updated".
 */
export async function grantReadAccess(db: Queryable, role: string): Promise<void> {
  if (!READ_ROLE_PATTERN.test(role)) throw new Error(`not a plain role name: ${JSON.stringify(role)}`);
  await db.query(`GRANT USAGE ON SCHEMA ${SCHEMA} TO ${role}`);
  await db.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${SCHEMA} TO ${role}`);
  await db.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${SCHEMA} GRANT SELECT ON TABLES TO ${role}`);
}
