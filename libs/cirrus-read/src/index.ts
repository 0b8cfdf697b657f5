// @platform/cirrus-read: reading cirrus's read model — its table naming, its
// catalogue, and searches in PostgREST's language with the caller's chain
// visibility — shared by cirrus's `cirrus.search` endpoint and the gateway's
// read path (docs/architecture.md "State and storage"). See README.md.
export { bareReadings, familyOf, namesOf, type Creator, type TableKind } from './naming.js';
export { CATALOGUE_CHANNEL, SCHEMA, catalogueTable, contractTablesOf, familiesOf, qualified, tableNamed, tableRecords } from './catalogue.js';
export type { CatalogueVar, ColumnDef, ColumnOrigin, Queryable, TableRec } from './catalogue.js';
export { TableResolver, designationOf, pickTable, resolveTable, search, type Designation } from './search.js';
export { startCirrusReader, type CirrusReader, type CirrusReaderOptions } from './reader.js';
export { READ_ROLE_PATTERN, grantReadAccess } from './grants.js';
