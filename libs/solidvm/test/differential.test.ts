// Differential test: every corpus case written in standard Solidity 0.8 is
// also compiled by solc and run on @ethereumjs/evm; success/failure, return
// values and revert reasons must agree with SolidVM.
import { CORPUS } from './corpus/index.js';
import { sourceOf, type CorpusCase } from './corpus/types.js';
import { EvmPeer, solcCompile } from './differential/evm.js';
import { ALICE, Chain } from './helpers.js';

const HEADER = '// SPDX-License-Identifier: UNLICENSED\npragma solidity ^0.8.0;\n';

const eligible: Array<[string, CorpusCase]> = [];
for (const [file, cases] of Object.entries(CORPUS)) {
  for (const k of cases) if (k.evm !== false && k.compileError === undefined) eligible.push([`${file}/${k.name}`, k]);
}

let compiled: ReturnType<typeof solcCompile>;
let peer: EvmPeer;

beforeAll(async () => {
  const sources: Record<string, string> = {};
  eligible.forEach(([, k], i) => (sources[`case${i}.sol`] = HEADER + sourceOf(k)));
  compiled = solcCompile(sources);
  peer = await EvmPeer.create();
}, 180_000);

describe('differential: SolidVM vs solc + EVM', () => {
  eligible.forEach(([id, k], i) => {
    test(id, async () => {
      const file = `case${i}.sol`;
      const solcErrors = compiled.errors.filter((e) => e.includes(file));
      if (solcErrors.length) throw new Error(`solc rejects the case (mark it evm: false if it is SolidVM-only):\n${solcErrors.join('\n')}`);
      const contract = compiled.contracts[file]?.[k.contract ?? 'C'];
      if (!contract) throw new Error('solc produced no contract');
      const chain = new Chain();
      const svm = chain.create(sourceOf(k), k.contract ?? 'C', k.ctorArgs);
      const evm = await peer.deploy(contract, k.ctorArgs, ALICE);
      expect({ create: evm.out.ok }).toEqual({ create: svm.ok });
      if (!svm.ok) return;
      for (const c of k.calls ?? []) {
        const caller = c.caller ?? ALICE;
        const a = chain.call(svm.address!, c.method, c.args, caller);
        const b = await peer.call(contract, evm.address!, c.method, c.args, caller);
        const what = `${c.method}(${JSON.stringify(c.args)})`;
        expect({ what, ok: a.ok }).toEqual({ what, ok: b.ok });
        if (a.ok) expect({ what, values: a.returnValues }).toEqual({ what, values: b.returnValues });
        else if (b.message !== undefined && (a.code === 'REVERT' || a.code === 'PANIC')) expect({ what, message: a.message }).toEqual({ what, message: b.message });
      }
    });
  });
});
