// Runs the conformance corpus on SolidVM: every case is created, then called,
// and each result or failure is compared with what the case expects.
import { CORPUS } from './corpus/index.js';
import { sourceOf, type CorpusCall, type CorpusCase } from './corpus/types.js';
import { Chain } from './helpers.js';
import { compile, type ExecOutcome } from '../src/index.js';

function checkFailure(out: ExecOutcome, fail: true | string | RegExp, what: string): void {
  if (out.ok) throw new Error(`${what}: expected a failure, got success ${JSON.stringify(out.returnValues)}`);
  if (typeof fail === 'string') expect(out.message).toBe(fail);
  else if (fail instanceof RegExp) expect(out.message).toMatch(fail);
}

function checkCall(out: ExecOutcome, c: CorpusCall): void {
  const what = `${c.method}(${JSON.stringify(c.args)})`;
  if (c.fail !== undefined) return checkFailure(out, c.fail, what);
  if (!out.ok) throw new Error(`${what}: failed: ${out.message}`);
  if (c.expect) expect({ call: what, values: out.returnValues }).toEqual({ call: what, values: c.expect });
}

export function runCase(k: CorpusCase): void {
  const src = sourceOf(k);
  if (k.compileError !== undefined) {
    let error: any;
    try {
      compile(src);
    } catch (e) {
      error = e;
    }
    if (!error) throw new Error('expected a compile error');
    expect(error.code).toBe('SOLIDVM_COMPILE_ERROR');
    if (typeof k.compileError === 'string') expect(error.message).toContain(k.compileError);
    else expect(error.message).toMatch(k.compileError);
    return;
  }
  const chain = new Chain();
  const created = chain.create(src, k.contract ?? 'C', k.ctorArgs);
  if (k.createFail !== undefined) return checkFailure(created, k.createFail, 'create');
  if (!created.ok) throw new Error(`create failed: ${created.message}`);
  for (const c of k.calls ?? []) checkCall(chain.call(created.address!, c.method, c.args, c.caller), c);
}

for (const [file, cases] of Object.entries(CORPUS)) {
  describe(`corpus: ${file}`, () => {
    for (const k of cases) test(k.name, () => runCase(k));
  });
}
