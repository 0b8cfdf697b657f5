// The syntax tree, as @solidity-parser/parser builds it: its own node types,
// with what SolidVM changes in them. The compilers take the node kind they
// compile (AST.FunctionCall, AST.IfStatement, …); Node is any node, narrowed
// by a switch on its `type`.
import type * as AST from '@solidity-parser/parser/dist/src/ast-types.js';

export type { AST };

/**
 * A binary operation whose operator may also be SolidVM's unsigned shift:
 * the parser reads `>>>` as `>>` then `>`, so source.ts writes it `>>` and
 * renames the operator in the tree.
 */
export interface BinaryOperation extends Omit<AST.BinaryOperation, 'operator'> {
  operator: AST.BinOp | '>>>' | '>>>=';
}

/** Any node of the tree. */
export type Node = Exclude<AST.ASTNode, AST.BinaryOperation> | BinaryOperation;

/**
 * The parser types some lists of nodes (a contract's members, a block's
 * statements, a tuple's components, a declaration's variables) by the common
 * base of all nodes, which has no fields to narrow on: they hold its nodes.
 */
export function asNodes<T extends Node = Node>(list: readonly AST.BaseASTNode[]): T[] {
  return list as T[];
}

/** A node that may be absent (a tuple's missing component, a declaration's unnamed variable). */
export function asNode<T extends Node = Node>(n: AST.BaseASTNode | null): T | null {
  return n as T | null;
}

/** The file a node was parsed from: source.ts marks every node with it. */
export function fileOf(n: Node): string | undefined {
  return (n as { __file?: string }).__file;
}
