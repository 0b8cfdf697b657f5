// The xabi's types (docs/conventions.md "Transactions": the platform's layout
// of a contract's interface) and the one walker over their tags. The types
// themselves are declared in @platform/common, because the execution results
// every service reads carry them (CreatedContract.xabi); this module is where
// code that reads a type goes through its tags: the argument grammar builds
// its decoders with it, cirrus its table shapes.
import type { Xabi, XabiFunc, XabiType, XabiVar } from '@platform/common';

export type { Xabi, XabiFunc, XabiType, XabiVar };

export type XabiOf<T extends XabiType['type']> = Extract<XabiType, { type: T }>;
export type XabiStruct = XabiOf<'Struct'>;

/** A struct's members, in order: [name, type]. */
export type StructFields = Array<[string, XabiType]>;

/**
 * Where a walk finds the members of a struct: an xabi's `types` table (keyed
 * by struct name, members with an `index`), or a function (a VM describing
 * its own parameters). Undefined: the definition is not known (a struct of
 * another contract).
 */
export type StructSource = Record<string, unknown> | ((t: XabiStruct) => StructFields | undefined);

/** One case per tag. `fields` of a struct is lazy, so that a walk over a recursive struct ends where its user stops asking. */
export interface XabiVisitor<R> {
  int(t: XabiOf<'Int'>): R;
  decimal(t: XabiOf<'Decimal'>): R;
  bool(t: XabiOf<'Bool'>): R;
  address(t: XabiOf<'Address'>): R;
  account(t: XabiOf<'Account'>): R;
  contract(t: XabiOf<'Contract'>): R;
  string(t: XabiOf<'String'>): R;
  /** dynamic `bytes`, or `bytesN` (`t.dynamic` false, `t.bytes` N) */
  bytes(t: XabiOf<'Bytes'>): R;
  enum(t: XabiOf<'Enum'>): R;
  array(t: XabiOf<'Array'>, entry: R): R;
  mapping(t: XabiOf<'Mapping'>, key: R, value: R): R;
  /** `fields()`: each member's name, folded value and type; undefined when the struct's definition is not known */
  struct(t: XabiStruct, fields: () => Array<[string, R, XabiType]> | undefined): R;
  /** a type nested deeper than `maxDepth`, or a tag this walker does not know; absent: it throws */
  other?(t: XabiType): R;
}

export interface WalkOptions {
  /** struct definitions; without them every struct is unknown */
  structs?: StructSource;
  /** nesting beyond which `other` is asked instead (default: unbounded) */
  maxDepth?: number;
}

/** The members of a struct named in an xabi's `types` (a struct of another contract is written `Other.S`), in order. */
export function structFieldsIn(types: Record<string, unknown>, typedef: string): StructFields | undefined {
  const def = (types[typedef] ?? types[typedef.slice(typedef.lastIndexOf('.') + 1)]) as { fields?: Record<string, XabiType & { index?: number }> } | undefined;
  if (!def?.fields || typeof def.fields !== 'object') return undefined;
  return Object.entries(def.fields)
    .sort((a, b) => (a[1].index ?? 0) - (b[1].index ?? 0))
    .map(([name, t]) => [name, t]);
}

function fieldsOf(structs: StructSource | undefined, t: XabiStruct): StructFields | undefined {
  if (!structs) return undefined;
  return typeof structs === 'function' ? structs(t) : structFieldsIn(structs, t.typedef);
}

/** Folds an xabi type into one value per node, bottom up. */
export function foldXabi<R>(t: XabiType, visitor: XabiVisitor<R>, options: WalkOptions = {}, depth = 0): R {
  const other = (): R => {
    if (visitor.other) return visitor.other(t);
    throw new Error(`no case for the xabi type ${JSON.stringify(t)}`);
  };
  if (options.maxDepth !== undefined && depth > options.maxDepth) return other();
  const next = (u: XabiType): R => foldXabi(u, visitor, options, depth + 1);
  switch (t.type) {
    case 'Int':
      return visitor.int(t);
    case 'Decimal':
      return visitor.decimal(t);
    case 'Bool':
      return visitor.bool(t);
    case 'Address':
      return visitor.address(t);
    case 'Account':
      return visitor.account(t);
    case 'Contract':
      return visitor.contract(t);
    case 'String':
      return visitor.string(t);
    case 'Bytes':
      return visitor.bytes(t);
    case 'Enum':
      return visitor.enum(t);
    case 'Array':
      return visitor.array(t, next(t.entry));
    case 'Mapping':
      return visitor.mapping(t, next(t.key), next(t.value));
    case 'Struct':
      return visitor.struct(t, () => fieldsOf(options.structs, t)?.map(([name, f]) => [name, next(f), f]));
    default:
      return other();
  }
}

/** A type as Solidity writes it, for messages: `uint256`, `bytes4`, `S[2]`, `mapping(string => uint256)`. */
export const xabiTypeText = (t: XabiType): string =>
  foldXabi<string>(t, {
    int: (x) => `${x.signed ? 'int' : 'uint'}${x.bytes * 8}`,
    decimal: () => 'decimal',
    bool: () => 'bool',
    address: () => 'address',
    account: () => 'account',
    contract: (x) => x.typedef,
    string: () => 'string',
    bytes: (x) => (x.dynamic ? 'bytes' : `bytes${x.bytes}`),
    enum: (x) => x.typedef,
    array: (x, entry) => `${entry}[${x.length ?? ''}]`,
    mapping: (_, key, value) => `mapping(${key} => ${value})`,
    struct: (x) => x.typedef,
    other: (x) => String((x as { type?: unknown }).type),
  });
