// JSON arguments → ABI values through the platform's one argument grammar
// (@platform/vm, docs/conventions.md "Arguments"), so a client sends the same
// JSON to either VM and it is accepted or refused alike: each ABI parameter
// is described as its xabi type once (structs through their ABI components,
// enums through the compiled unit's member names), and the grammar's values
// are what the ABI codec encodes. A mismatch names the parameter and the
// expected type.
import { ArgumentError, argumentsDecoder, chooseOverload as choose, normaliseArgs as normalise, valueDecoder, type ArgParam, type ArgumentsDecoder, type DecoderOptions, type GivenArgs, type XabiOf, type XabiType } from '@platform/vm';
import { abiEncode } from './abi-codec.js';
import { abiType, type AbiEntry, type AbiParam } from './abi-types.js';
import { ExecFailure } from './errors.js';

/** Names of an enum's members by its name (from the xabi), so enum arguments may be given by name. */
export type EnumLookup = (typedef: string) => string[] | undefined;

const lastSegment = (s: string) => s.slice(s.lastIndexOf('.') + 1);

/** An ABI parameter as the xabi type the grammar decodes; a tuple's components are found through `structs`. */
function argType(p: AbiParam, structs: Map<XabiOf<'Struct'>, AbiParam[]>, enums: EnumLookup | undefined): XabiType {
  const arr = /^(.*)\[(\d*)\]$/.exec(p.type);
  if (arr) {
    const entry = argType({ ...p, type: arr[1], internalType: p.internalType?.replace(/\[\d*\]$/, '') }, structs, enums);
    return arr[2] === '' ? { type: 'Array', entry } : { type: 'Array', entry, length: Number(arr[2]) };
  }
  const internal = p.internalType ?? '';
  if (p.type === 'tuple') {
    const x: XabiOf<'Struct'> = { type: 'Struct', typedef: internal.startsWith('struct ') ? internal.slice(7) : p.name || 'tuple' };
    structs.set(x, p.components ?? []);
    return x;
  }
  const t = abiType(p);
  switch (t.k) {
    case 'uint':
    case 'int':
      if (t.k === 'uint' && t.bits === 8 && internal.startsWith('enum ')) {
        const typedef = internal.slice(5);
        const names = enums?.(lastSegment(typedef));
        return names ? { type: 'Enum', typedef, names } : { type: 'Enum', typedef };
      }
      return { type: 'Int', signed: t.k === 'int', bytes: t.bits / 8 };
    case 'address':
      return internal.startsWith('contract ') ? { type: 'Contract', typedef: internal.slice(9) } : { type: 'Address' };
    case 'bool':
      return { type: 'Bool' };
    case 'string':
      return { type: 'String', dynamic: true };
    case 'bytes':
      return { type: 'Bytes', dynamic: true };
    case 'fbytes':
      return { type: 'Bytes', dynamic: false, bytes: t.n };
    default:
      return { type: p.type } as unknown as XabiType;
  }
}

function optionsFor(structs: Map<XabiOf<'Struct'>, AbiParam[]>, enums: EnumLookup | undefined): DecoderOptions {
  return { structs: (x) => structs.get(x)?.map((c, i): [string, XabiType] => [c.name || String(i), argType(c, structs, enums)]) };
}

/** Grammar errors as the EVM's failures (code BAD_ARGUMENTS). */
function asFailure<T>(run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof ArgumentError) throw new ExecFailure('BAD_ARGUMENTS', e.message);
    throw e;
  }
}

const decoders = new WeakMap<AbiParam[], Map<string, ArgumentsDecoder>>();

/** The decoder of a function's or constructor's inputs, built once per ABI entry and name. */
function decoderFor(params: AbiParam[], what: string, enums: EnumLookup | undefined): ArgumentsDecoder {
  let byName = decoders.get(params);
  if (!byName) decoders.set(params, (byName = new Map()));
  let d = byName.get(what);
  if (!d) {
    const structs = new Map<XabiOf<'Struct'>, AbiParam[]>();
    const ps: ArgParam[] = params.map((p) => ({ name: p.name, type: argType(p, structs, enums) }));
    byName.set(what, (d = argumentsDecoder(ps, what, optionsFor(structs, enums))));
  }
  return d;
}

/** Converts one JSON value to the ABI value of parameter `p`. */
export function toAbiValue(p: AbiParam, v: unknown, path: string, enums?: EnumLookup): unknown {
  const structs = new Map<XabiOf<'Struct'>, AbiParam[]>();
  return asFailure(() => valueDecoder(argType(p, structs, enums), optionsFor(structs, enums))(v, path));
}

/** Any accepted argument form → positional values or a by-name object (throws ExecFailure BAD_ARGUMENTS). */
export function normaliseArgs(args: unknown): GivenArgs {
  return asFailure(() => normalise(args));
}

/** ABI-encodes JSON arguments for `params` (a function's or constructor's inputs). */
export function encodeArguments(params: AbiParam[], args: GivenArgs, what: string, enums?: EnumLookup): Uint8Array {
  const values = asFailure(() => decoderFor(params, what, enums).decode(args));
  return abiEncode(
    params.map((p) => abiType(p)),
    values,
  );
}

/**
 * Picks among functions of one name as the grammar does (by the argument
 * names or their count, then the first in the ABI's order whose arguments
 * decode) and ABI-encodes the arguments for it.
 */
export function encodeCall(method: string, cands: AbiEntry[], args: GivenArgs, what: (fn: AbiEntry) => string, enums?: EnumLookup): { fn: AbiEntry; encoded: Uint8Array } {
  const { fn, values } = asFailure(() => choose(method, cands, args, (c) => decoderFor(c.inputs ?? [], what(c), enums)));
  return {
    fn,
    encoded: abiEncode(
      (fn.inputs ?? []).map((p) => abiType(p)),
      values,
    ),
  };
}
