// The parsed query: what the request says, before anything is checked against
// a catalogue. Names here are API names exactly as the client wrote them; the
// planner (src/plan) resolves them, checks types and produces SQL.

/** One step of a JSON path: `->key`, `->>key`, `->0`, `->>-1`. */
export interface JsonStep {
  /** `->` yields jsonb, `->>` yields text */
  readonly arrow: '->' | '->>';
  readonly key: string | number;
}

/** A column reference, optionally followed by a JSON path (`meta->owner->>name`). */
export interface FieldRef {
  readonly name: string;
  readonly path: readonly JsonStep[];
}

export type SelectItem =
  | { readonly kind: 'star' }
  /** `cast`: `qty::text`, the type name in lower case (the planner checks it) */
  | { readonly kind: 'field'; readonly field: FieldRef; readonly alias: string | null; readonly cast: string | null }
  /** `count()`; a bare `count` is a `field` the planner turns into a count when the table has no such column */
  | { readonly kind: 'count'; readonly alias: string | null }
  | {
      readonly kind: 'embed';
      readonly relation: string;
      readonly alias: string | null;
      /** `Item!owner(*)`: the column that disambiguates two relations to the same table */
      readonly hint: string | null;
      /** `Item!inner(*)`: parent rows without an embedded row (after its filters) are dropped */
      readonly inner: boolean;
      readonly select: readonly SelectItem[];
    };

export type ComparisonOperator = 'eq' | 'neq' | 'lt' | 'lte' | 'gt' | 'gte' | 'like' | 'ilike';
export type Trilean = 'null' | 'true' | 'false' | 'unknown';

export type Predicate =
  | { readonly op: ComparisonOperator; readonly value: string }
  /** `in.()` (and PostgREST's quirk `in.("")`) give an empty list: matches nothing */
  | { readonly op: 'in'; readonly values: readonly string[] }
  | { readonly op: 'is'; readonly value: Trilean };

export type Condition =
  | {
      readonly kind: 'filter';
      readonly field: FieldRef;
      /** `not.` wraps the test in NOT: NULLs match neither `eq` nor `not.eq` */
      readonly negated: boolean;
      readonly predicate: Predicate;
      /** the text the condition came from, for error messages (`qty=gt.abc`) */
      readonly source: string;
    }
  | {
      readonly kind: 'logic';
      readonly op: 'and' | 'or';
      readonly negated: boolean;
      readonly children: readonly Condition[];
      readonly source: string;
    };

export interface OrderTerm {
  /**
   * `Owner(name).desc`: the field is a column of the to-one embed `Owner` of
   * the same level (named as in select: its alias, else its relation name)
   */
  readonly relation?: string;
  readonly field: FieldRef;
  /** null: not given (PostgreSQL's default, ascending) */
  readonly direction: 'asc' | 'desc' | null;
  /** null: not given (PostgreSQL's default: NULLs last ascending, first descending) */
  readonly nulls: 'first' | 'last' | null;
}

/** What a level of the query (the top, or one embed) is filtered, ordered and paged by. */
export interface LevelParams {
  /** every filter and logic parameter, all ANDed */
  readonly where: readonly Condition[];
  /** null when absent (the table's default order applies) */
  readonly order: readonly OrderTerm[] | null;
  readonly limit: number | null;
  /** 0 when absent; a negative offset is 0, as PostgREST does */
  readonly offset: number;
}

/**
 * What parameters with a dotted key say about one embedded resource:
 * `Order.qty=gt.5`, `Order.or=(…)`, `Order.order=qty.desc`, `Order.limit=2`,
 * `Order.offset=1`. They filter, order and page the embedded rows, never the
 * parent's.
 */
export interface EmbeddedParams extends LevelParams {
  /** the embed as the keys name it, from the top: `Order.Customer.name=eq.x` → ['Order', 'Customer'] */
  readonly path: readonly string[];
}

export interface QueryAst extends LevelParams {
  /** `[{kind: 'star'}]` when `select` is absent */
  readonly select: readonly SelectItem[];
  /** `Prefer: count=exact` (also `planned`/`estimated`, answered exactly) */
  readonly count: boolean;
  /** parameters addressed to embedded resources, one entry per path, in the order first given */
  readonly embedded: readonly EmbeddedParams[];
}
