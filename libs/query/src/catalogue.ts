// The catalogue: the typed allowlist the planner checks every name against.
// Cirrus owns the tables and builds a Catalogue of them; this library only
// reads it. API names (what clients write: `Acme-Item`, `chainId`) map to
// internal SQL identifiers (what PostgreSQL knows), so PostgreSQL's 63-byte
// limit and quoting never reach clients, and no client text ever becomes an
// identifier: an identifier in generated SQL always comes from here.

/**
 * How values of a column are compared and returned:
 * - `text`: strings (addresses, `block_timestamp` as `YYYY-MM-DD HH:MM:SS UTC`, event arguments);
 * - `integer` / `numeric`: PostgreSQL `numeric` (or any integer type), compared
 *   as numbers (`eq.7.0` matches 7) and returned as JSON numbers with every digit;
 * - `boolean`;
 * - `jsonb`: structs; filterable with JSON values and `->`/`->>` paths.
 */
export type ColumnType = 'text' | 'integer' | 'numeric' | 'boolean' | 'jsonb';

export interface CatalogueColumn {
  /** the column's SQL identifier (unquoted) */
  readonly sql: string;
  readonly type: ColumnType;
}

/**
 * An embeddable resource: `select=*,Item(*)` on this table embeds rows of
 * `target` whose columns equal this row's (`on`: pairs of API column names,
 * this table's first). A contract reference is `[['item', 'address'],
 * ['chainId', 'chainId']]` with cardinality `one` (an object or null); the
 * reverse direction is cardinality `many` (an array, `[]` when none), e.g.
 * `[['address', 'item'], ['chainId', 'chainId']]` from the referred table.
 */
export interface CatalogueRelation {
  /** the name used in `select` (`Item`); several relations of one name are told apart by their hints (`Item!buyer(*)`) */
  readonly name: string;
  /** API name of the embedded table */
  readonly target: string;
  /**
   * Further tables holding rows of the same resource, each with the `on`
   * columns of `target` (cirrus: the older versions of a contract's table).
   * A `one` embed takes the row of the first table, `target` then these, that
   * has one; a `many` embed takes the rows of all of them, in `target`'s
   * default order. A selected column some of them lack is null in their rows.
   */
  readonly alsoIn?: readonly string[];
  readonly on: ReadonlyArray<readonly [string, string]>;
  readonly cardinality: 'one' | 'many';
  /**
   * The word after `!` that picks this relation among those of its name:
   * PostgREST's foreign-key column (`Order!buyer(*)` for the orders whose
   * `buyer` is this row). Default: this table's first `on` column.
   */
  readonly hint?: string;
}

export interface OrderSpec {
  /** an API column of the table; or, with `internal`, the SQL name of a column clients never see */
  readonly column: string;
  /**
   * The column is internal (its SQL name), not in `columns`: a tie-breaker
   * such as the write order of history rows, which orders rows without being
   * selectable or filterable.
   */
  readonly internal?: boolean;
  readonly direction?: 'asc' | 'desc';
  readonly nulls?: 'first' | 'last';
}

export interface CatalogueTable {
  /** the API name (as in `/cirrus/search/<name>`) */
  readonly name: string;
  /** the table's SQL identifier, optionally schema-qualified */
  readonly sql: string | { readonly schema: string; readonly name: string };
  /** API name → column, in the order `select=*` returns them */
  readonly columns: ReadonlyMap<string, CatalogueColumn>;
  /**
   * API name of the column holding the chain ID a row belongs to (main chain:
   * the empty string); every query on the table, embedded ones included, only
   * sees rows whose chain is among the caller's visible chains. `null`: rows
   * belong to no chain and everyone sees them.
   */
  readonly chainColumn: string | null;
  readonly relations?: readonly CatalogueRelation[];
  /** order when the request has no `order` (docs/conventions.md: contract tables by block_number then address) */
  readonly defaultOrder?: readonly OrderSpec[];
  /**
   * The chains this table has rows on, when the owner knows them: a caller who
   * can see none of them gets 404, as if the table did not exist.
   */
  readonly chains?: ReadonlySet<string>;
}

export interface Catalogue {
  /**
   * The table an API name designates, or undefined. May throw a PlatformError
   * itself (e.g. CONFLICT for an ambiguous bare contract name).
   */
  table(name: string): CatalogueTable | undefined;
}

/** A Catalogue over a fixed list of tables (tests, benchmarks, simple owners). */
export function catalogueOf(tables: Iterable<CatalogueTable>): Catalogue {
  const byName = new Map<string, CatalogueTable>();
  for (const t of tables) byName.set(t.name, t);
  return { table: (name) => byName.get(name) };
}

/** Columns from `[apiName, sqlName, type]` triples, keeping their order. */
export function columnsOf(list: Iterable<readonly [string, string, ColumnType]>): Map<string, CatalogueColumn> {
  return new Map([...list].map(([api, sql, type]) => [api, { sql, type }] as const));
}
