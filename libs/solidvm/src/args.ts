// Call arguments through the platform's one argument grammar (@platform/vm,
// docs/conventions.md "Arguments"): SolidVM describes each function's
// parameters as xabi types once, and says how it holds the values the
// grammar gives (bytesN as an integer, enums as numbers, mappings keyed by
// their key text, accounts as AccountValue). A mismatch names the parameter
// and the expected type.
import { ArgumentError as GrammarError, argumentsDecoder, chooseOverload, normaliseArgs, valueDecoder, type ArgParam, type ArgRepresentation, type ArgumentsDecoder, type GivenArgs, type XabiOf, type XabiType } from '@platform/vm';
import { VmFailure } from './errors.js';
import { bytesToHex } from './hash.js';
import type { CFn, Param } from './scope.js';
import { scalarXabiType, typeName, type SType, type StructT } from './types.js';
import { AccountValue, fbytesHex, formatDecimal } from './values.js';

export { GrammarError, normaliseArgs };

export class ArgumentError extends VmFailure {
  constructor(message: string) {
    super('BAD_ARGUMENTS', message, 'other', {}, false);
  }
}

/** A mapping key as SolidVM keys its Map (values.ts keyText), from the key's xabi type. */
function keyText(t: XabiType, v: unknown): string {
  switch (t.type) {
    case 'String':
      return JSON.stringify(v);
    case 'Bool':
      return v ? 'true' : 'false';
    case 'Bytes':
      return t.dynamic ? '0x' + bytesToHex(v as Uint8Array) : fbytesHex(v as bigint, t.bytes ?? 32);
    case 'Decimal':
      return formatDecimal(v as bigint);
    default:
      return String(v);
  }
}

const REPRESENTATION: ArgRepresentation = {
  enumIndex: (i) => i,
  fixedBytes: (b) => BigInt('0x' + bytesToHex(b)),
  account: (a) => new AccountValue(a.address, a.chain),
  mapping: (entries, key) => new Map(entries.map(([k, v]) => [keyText(key, k), v])),
};

/**
 * A SolidVM type as the xabi type the grammar decodes, its structs' members
 * known through `structs`. A type no JSON can give (an internal function
 * type) becomes a tag the walker has no case for: every value is refused,
 * naming the type.
 */
function argType(t: SType, structs: Map<XabiOf<'Struct'>, StructT>): XabiType {
  switch (t.k) {
    case 'array':
      return t.len === null ? { type: 'Array', entry: argType(t.elem, structs) } : { type: 'Array', entry: argType(t.elem, structs), length: t.len };
    case 'mapping':
      return { type: 'Mapping', key: argType(t.key, structs), value: argType(t.value, structs) };
    case 'struct': {
      const x: XabiOf<'Struct'> = { type: 'Struct', typedef: t.name };
      structs.set(x, t);
      return x;
    }
    default:
      return scalarXabiType(t) ?? ({ type: typeName(t) } as unknown as XabiType);
  }
}

function optionsFor(structs: Map<XabiOf<'Struct'>, StructT>) {
  // members are asked for lazily (a struct may hold arrays of itself), in declaration order: SolidVM's struct values
  return { structs: (x: XabiOf<'Struct'>) => structs.get(x)?.fields.map((f): [string, XabiType] => [f.name, argType(f.t, structs)]), representation: REPRESENTATION };
}

const decoders = new WeakMap<Param[], Map<string, ArgumentsDecoder>>();

/** The decoder of a function's (or constructor's) parameters, built once per function and name. */
export function decoderFor(params: Param[], what: string): ArgumentsDecoder {
  let byName = decoders.get(params);
  if (!byName) decoders.set(params, (byName = new Map()));
  let d = byName.get(what);
  if (!d) {
    const structs = new Map<XabiOf<'Struct'>, StructT>();
    const ps: ArgParam[] = params.map((p) => ({ name: p.name, type: argType(p.t, structs), typeText: typeName(p.t) }));
    byName.set(what, (d = argumentsDecoder(ps, what, optionsFor(structs))));
  }
  return d;
}

/** Grammar errors as SolidVM's failures (code BAD_ARGUMENTS). */
function asFailure<T>(run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof GrammarError) throw new ArgumentError(e.message);
    throw e;
  }
}

/** Any accepted form of `args` → positional values or a by-name object; throws ArgumentError. */
export function normalise(args: unknown): GivenArgs {
  return asFailure(() => normaliseArgs(args));
}

export function decodeArgs(params: Param[], args: GivenArgs, what: string): unknown[] {
  return asFailure(() => decoderFor(params, what).decode(args));
}

/**
 * Picks among overloads (by the argument names, or their count, then the
 * first whose arguments decode) and decodes for it. Throws the grammar's
 * ArgumentError (the caller turns it into BAD_ARGUMENTS): this is every
 * call's path, so nothing is wrapped.
 */
export function bindCall(method: string, cands: CFn[], args: unknown, what: string): { fn: CFn; values: unknown[] } {
  const given = normaliseArgs(args);
  if (cands.length === 1) return { fn: cands[0], values: decoderFor(cands[0].params, what).decode(given) };
  return chooseOverload(method, cands, given, (c) => decoderFor(c.params, what));
}

/** One value of type `t` from JSON (tests: the differential peer encodes what SolidVM decoded). */
export function decodeValue(t: SType, v: unknown, path: string): unknown {
  const structs = new Map<XabiOf<'Struct'>, StructT>();
  return asFailure(() => valueDecoder(argType(t, structs), optionsFor(structs))(v, path));
}
