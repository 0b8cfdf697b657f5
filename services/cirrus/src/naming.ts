// API names of the indexed tables: the convention lives in @platform/cirrus-read
// (the read path resolves names with it too); the indexer names tables with it.
export { bareReadings, familyOf, namesOf, type Creator, type TableKind } from '@platform/cirrus-read';
