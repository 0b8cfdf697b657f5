// The gas cost tables are the platform's (@platform/vm): SolidVM meters with them.
export { GAS_TABLES, gasTable, type GasTable } from '@platform/vm';
