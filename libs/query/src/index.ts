// @platform/query: PostgREST's query language over a catalogue of tables.
//   parseQuery(params, {prefer})                       → QueryAst (or a 400)
//   planQuery(ast, catalogue, {table, visibleChains})  → QueryPlan (or a 400/404)
//   runQuery(knex or pg, plan)                         → {rows, total, status, contentRange}
//   toJson(rows)                                       → the response body
//   runQueryJson(knex or pg, plan)                     → {json, total, status, contentRange}: the body written from the database's values
// See README.md for the grammar and the semantics pinned.
export type {
  ComparisonOperator,
  Condition,
  EmbeddedParams,
  FieldRef,
  JsonStep,
  LevelParams,
  OrderTerm,
  Predicate,
  QueryAst,
  SelectItem,
  Trilean,
} from './ast.js';
export { parseQuery, prefersCount } from './parse/query.js';
export type { ParseOptions, QueryParams } from './parse/query.js';
export { catalogueOf, columnsOf } from './catalogue.js';
export type { Catalogue, CatalogueColumn, CatalogueRelation, CatalogueTable, ColumnType, OrderSpec } from './catalogue.js';
export { planQuery } from './plan/plan.js';
export type { PlanOptions, QueryPlan } from './plan/plan.js';
export type { OutputColumn, OutputKind } from './plan/select.js';
export { nativeStatement, runQuery, runQueryJson } from './run.js';
export type { Database, JsonQueryResult, JsonValue, PgQueryable, QueryResult, Row, RunOptions, TextRowSource } from './run.js';
export { rangeAnswer } from './range.js';
export type { RangeAnswer } from './range.js';
export { jsonNumber, jsonText, parseJson, toJson } from './json.js';
