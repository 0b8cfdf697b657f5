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
  /** expected failure code (REVERT, PANIC, BAD_ARGUMENTS, STEP_LIMIT, OUT_OF_GAS, …) */
  code?: string;
  /** the events the call emitted: [name, [[argument, value as text], …]] in emission order */
  events?: Array<[string, Array<[string, string]>]>;
  /** the storage diff of the called contract (path → new stored text, null when back to the default); `{}` asserts no change */
  diff?: Record<string, string | null>;
  /** gasUsed, pinned (golden value; meaningful with `ctx.gasEnabled`) */
  gasUsed?: number;
  /** names of the contracts the call created, in creation order */
  created?: string[];
  /** the called contract selfdestructed */
  deleted?: boolean;
}

/** What the creation itself must report (the same checks as a call's). */
export type CreationCheck = Pick<CorpusCall, 'events' | 'diff' | 'gasUsed' | 'created'>;

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
  /**
   * Whether the case is also run through solc + @ethereumjs/evm
   * (test/differential.test.ts checks each claim against solc itself):
   * - absent/true: standard Solidity 0.8; solc must compile it (or, for a
   *   `compileError` case, reject it too) and the EVM must agree;
   * - false: SolidVM-only syntax or built-ins; solc must reject it;
   * - a string: solc accepts it, but it is not compared, for the reason given
   *   (SolidVM semantics or argument forms that differ by design).
   */
  evm?: boolean | string;
  /** execution context of the case (gas metering, step limit, gas limit) */
  ctx?: { gasEnabled?: boolean; stepLimit?: number; gasLimit?: number; chainId?: string };
  /** expectations on the creation outcome */
  creation?: CreationCheck;
  /** a subset the contract's xabi must contain (toMatchObject) */
  xabi?: Record<string, unknown>;
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

export function fails(method: string, args: unknown, fail: true | string | RegExp = true, code?: string): CorpusCall {
  return code === undefined ? { method, args, fail } : { method, args, fail, code };
}
