import type { CorpusCase } from './types.js';
import { cases as arithmetic } from './arithmetic.js';
import { cases as bytes } from './bytes.js';
import { cases as compileErrors } from './compile-errors.js';
import { cases as contracts } from './contracts.js';
import { cases as control } from './control.js';
import { cases as errors } from './errors.js';
import { cases as functions } from './functions.js';
import { cases as inheritance } from './inheritance.js';
import { cases as solidvm } from './solidvm.js';
import { cases as storage } from './storage.js';
import { cases as trycatch } from './trycatch.js';
import { cases as globals } from './globals.js';
import { cases as iface } from './interface.js';
import { cases as values } from './values.js';
import { cases as aliasing } from './aliasing.js';
import { cases as abi } from './abi.js';
import { cases as language } from './language.js';
import { cases as svmtypes } from './svmtypes.js';

export const CORPUS: Record<string, CorpusCase[]> = { arithmetic, values, control, storage, aliasing, functions, language, inheritance, contracts, errors, trycatch, globals, bytes, abi, solidvm, svmtypes, interface: iface, 'compile-errors': compileErrors };

/** How the corpus splits: standard Solidity (compared with the EVM), SolidVM-only, compile errors. */
export function corpusCounts(): { total: number; standard: number; svmOnly: number; compileErrors: number } {
  const all = Object.values(CORPUS).flat();
  const compileErrors = all.filter((k) => k.compileError !== undefined).length;
  const standard = all.filter((k) => k.compileError === undefined && (k.evm === undefined || k.evm === true)).length;
  return { total: all.length, standard, svmOnly: all.length - compileErrors - standard, compileErrors };
}
