// The conformance corpus format: small contracts with calls and expected results.

export interface CorpusCall {
  method: string;
  /** JSON keyed by name, positional array, or the raw form "(1,2)" */
  args?: unknown;
  /** expected return values (strings, as SolidVM reports them) */
  expect?: string[];
  /** expected failure: true (any), or text/regexp the message must match */
  fail?: true | string | RegExp;
  caller?: string;
}

export interface CorpusCase {
  name: string;
  /** full source; when `body` is given instead, it is wrapped in `contract C { … }` */
  src?: string;
  body?: string;
  /** contract to create (default C) */
  contract?: string;
  ctorArgs?: unknown;
  /** the creation itself is expected to fail */
  createFail?: true | string | RegExp;
  /** the source must be rejected at compile time */
  compileError?: string | RegExp;
  calls?: CorpusCall[];
  /** standard Solidity 0.8 that solc + the EVM must agree with (default true); false for SolidVM-only features */
  evm?: boolean;
}

export function sourceOf(c: CorpusCase): string {
  return c.src ?? `contract C {\n${c.body}\n}`;
}

/** Shorthand for a case in standard Solidity. */
export function sol(name: string, body: string, calls: CorpusCall[], extra: Partial<CorpusCase> = {}): CorpusCase {
  return { name, body, calls, ...extra };
}

/** Shorthand for a SolidVM-only case (not run on the EVM). */
export function svm(name: string, body: string, calls: CorpusCall[], extra: Partial<CorpusCase> = {}): CorpusCase {
  return { name, body, calls, evm: false, ...extra };
}

export function call(method: string, args: unknown, expect: string[] | string): CorpusCall {
  return { method, args, expect: Array.isArray(expect) ? expect : [expect] };
}

export function fails(method: string, args: unknown, fail: true | string | RegExp = true): CorpusCall {
  return { method, args, fail };
}
