// The syntax tree, as @solidity-parser/parser builds it.

export type Node = any;
