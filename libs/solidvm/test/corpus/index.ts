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

export const CORPUS: Record<string, CorpusCase[]> = { arithmetic, control, storage, functions, inheritance, contracts, errors, bytes, solidvm, 'compile-errors': compileErrors };
