// Differential testing on generated programs: fast-check builds random
// arithmetic and control-flow functions over one integer type; each runs on
// SolidVM and on solc + @ethereumjs/evm with edge and random inputs, and the
// outcomes (value, or failure with its panic reason) must agree.
import fc from 'fast-check';
import { EvmPeer, solcCompileEach } from './differential/evm.js';
import { ALICE, Chain } from './helpers.js';
import { intT } from '../src/types.js';

const TYPES = ['uint8', 'int8', 'uint16', 'int32', 'uint64', 'uint256', 'int256'] as const;
type TypeName = (typeof TYPES)[number];

function exprArb(t: TypeName, vars: string[]): fc.Arbitrary<string> {
  const signed = t.startsWith('int');
  const lit = fc.integer({ min: 1, max: 20 }).map(String);
  const { expr } = fc.letrec<{ expr: string; leaf: string; cmp: string }>((tie) => ({
    leaf: fc.constantFrom(...vars),
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('leaf'),
      fc.tuple(tie('expr'), fc.constantFrom('+', '-', '*', '/', '%', '&', '|', '^'), fc.oneof(tie('expr'), lit)).map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc.tuple(tie('expr'), fc.constantFrom('<<', '>>'), fc.integer({ min: 0, max: 9 })).map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc.tuple(tie('cmp'), tie('expr'), tie('expr')).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
      ...(signed ? [tie('expr').map((a) => `(-${a})`)] : []),
      tie('expr').map((a) => `(~${a})`),
    ),
    cmp: fc.tuple(tie('expr'), fc.constantFrom('<', '>', '<=', '>=', '==', '!='), tie('expr')).map(([a, op, b]) => `${a} ${op} ${b}`),
  }));
  return expr;
}

const programArb = fc.constantFrom(...TYPES).chain((t) =>
  fc.record({
    t: fc.constant(t),
    e1: exprArb(t, ['a', 'b', 'c']),
    e2: exprArb(t, ['a', 'b', 'r']),
    e3: exprArb(t, ['b', 'c', 'r']),
    cond: fc.tuple(exprArb(t, ['a', 'r']), fc.constantFrom('<', '>', '==', '!='), exprArb(t, ['b', 'c'])).map(([a, op, b]) => `${a} ${op} ${b}`),
    loops: fc.integer({ min: 0, max: 4 }),
    unchecked: fc.boolean(),
  }),
);

interface Program {
  t: TypeName;
  src: string;
}

function render(p: fc.Arbitrary<any> extends never ? never : any): Program {
  const { t, e1, e2, e3, cond, loops, unchecked } = p;
  const body = unchecked ? `unchecked { r = ${e1}; }` : `r = ${e1};`;
  const src = `contract C {
  function f(${t} a, ${t} b, ${t} c) public pure returns (${t} r) {
    ${body}
    for (uint8 i = 0; i < ${loops}; i++) {
      if (${cond}) { r = ${e2}; } else { r = ${e3}; }
      if (r == c) break;
    }
  }
}`;
  return { t, src };
}

const PROGRAMS: Program[] = fc.sample(programArb, { seed: 20240601, numRuns: 60 }).map(render);

function inputsFor(t: TypeName, seed: number): string[][] {
  const it = intT(t.startsWith('int'), Number(t.replace(/u?int/, '')));
  const edges = [0n, 1n, 2n, 7n, it.max, it.max - 1n, ...(it.signed ? [-1n, it.min, it.min + 1n, -7n] : [])];
  const rnd = fc.sample(fc.bigInt({ min: it.min, max: it.max }), { seed, numRuns: 12 });
  const pool = [...edges, ...rnd];
  const rows: string[][] = [];
  for (let i = 0; i < 8; i++) rows.push([pool[(i * 7) % pool.length], pool[(i * 3 + 1) % pool.length], pool[(i * 5 + 2) % pool.length]].map(String));
  return rows;
}

const HEADER = '// SPDX-License-Identifier: UNLICENSED\npragma solidity ^0.8.0;\n';
let compiled: ReturnType<typeof solcCompileEach>;
let peer: EvmPeer;

beforeAll(async () => {
  const sources: Record<string, string> = {};
  PROGRAMS.forEach((p, i) => (sources[`gen${i}.sol`] = HEADER + p.src));
  // a program solc rejects (a constant that does not fit) must not cost the others their bytecode
  compiled = solcCompileEach(sources);
  peer = await EvmPeer.create();
}, 180_000);

describe('generated programs agree with solc + EVM', () => {
  PROGRAMS.forEach((p, i) => {
    test(`program ${i} (${p.t})`, async () => {
      const rejected = compiled.rejected.has(`gen${i}.sol`);
      const chain = new Chain();
      const svm = chain.create(p.src, 'C');
      if (rejected) {
        // both compilers must reject it (e.g. a constant that does not fit)
        expect({ src: p.src, svmCompiled: svm.ok }).toEqual({ src: p.src, svmCompiled: false });
        return;
      }
      expect({ src: p.src, created: svm.ok, message: svm.message }).toEqual({ src: p.src, created: true, message: 'Success!' });
      const contract = compiled.out.contracts[`gen${i}.sol`].C;
      const dep = await peer.deploy(contract, [], ALICE);
      for (const args of inputsFor(p.t, i)) {
        const a = chain.call(svm.address!, 'f', args);
        const b = await peer.call(contract, dep.address!, 'f', args, ALICE);
        const got = { src: p.src, args, ok: a.ok, values: a.returnValues, message: a.ok ? undefined : a.message };
        const want = { src: p.src, args, ok: b.ok, values: b.returnValues, message: b.ok ? undefined : b.message };
        expect(got).toEqual(want);
      }
    });
  });
});
