// A PostgreSQL for the tests that run queries: the embedded server of
// @platform/launcher, one database, the fixtures loaded.
import knexFactory, { type Knex } from 'knex';
import { parse } from 'lossless-json';
import { startTestInfra, type TestInfra } from '@platform/launcher';
import { type QueryResult, parseQuery, planQuery, runQuery, toJson } from '../src/index.js';
import { VISIBLE, catalogue, createFixtures } from './fixtures.js';

export interface TestDb {
  knex: Knex;
  url: string;
  stop(): Promise<void>;
}

export async function startTestDb(database: string): Promise<TestDb> {
  const infra: TestInfra = await startTestInfra({ postgres: true });
  try {
    const url = await infra.postgres!.createDatabase(database);
    const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 4 } });
    await createFixtures(knex);
    return {
      knex,
      url,
      async stop() {
        await knex.destroy();
        await infra.stop();
      },
    };
  } catch (err) {
    await infra.stop();
    throw err;
  }
}

/** parse → plan → run, as the cirrus endpoint will. */
export async function query(
  knex: Knex,
  table: string,
  params: string,
  options: { prefer?: string; visibleChains?: readonly string[] } = {},
): Promise<QueryResult> {
  const ast = parseQuery(params, { prefer: options.prefer });
  const plan = planQuery(ast, catalogue, { table, visibleChains: options.visibleChains ?? VISIBLE });
  return runQuery(knex, plan);
}

/** Values as they go over the wire: the body, parsed back losslessly (numbers as their text). */
export function wire(value: unknown): unknown {
  return parse(toJson(value as never), null, (n: string) => ({ number: n }));
}

/** Rows of a hand-written statement whose only column is JSON text. */
export async function handRows(knex: Knex, statement: string): Promise<unknown[]> {
  const result = await knex.raw(statement);
  return (result.rows as Array<Record<string, string>>).map((r) => parse(Object.values(r)[0], null, (n: string) => ({ number: n })));
}
