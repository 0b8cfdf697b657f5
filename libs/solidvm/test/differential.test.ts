// Differential test against a peer nobody here wrote: every corpus case is
// offered to solc 0.8.37, and
// - every case in standard Solidity 0.8 (the default) is compiled by solc and
//   run on @ethereumjs/evm, each in a fresh EVM with the same creator, caller,
//   block and addresses as SolidVM gets: creation success, return values,
//   success/failure of every call and the revert/panic/custom-error message
//   must agree;
// - every compile-error case must be rejected by solc too, unless the case
//   says why SolidVM rejects what solc accepts;
// - a case marked SolidVM-only (`evm: false`) must really be rejected by solc,
//   so no standard case can hide from the comparison; a case solc accepts but
//   that is not compared must say why (`evm: '<reason>'`).
import { CORPUS } from './corpus/index.js';
import { sourceOf, type CorpusCase } from './corpus/types.js';
import { EvmPeer, solcCompileEach, type SolcOutput } from './differential/evm.js';
import { ALICE, Chain } from './helpers.js';

const HEADER = '// SPDX-License-Identifier: UNLICENSED\npragma solidity ^0.8.0;\n';

// Measured when the corpus was last extended; the floor keeps the comparison
// from silently shrinking (a case moved to SolidVM-only must be a real one).
const MIN_COMPARED = 440;

type Kind = 'compared' | 'reject-both' | 'svm-only' | 'solc-accepts';
interface Entry {
  id: string;
  file: string;
  k: CorpusCase;
  kind: Kind;
}

function kindOf(k: CorpusCase): Kind {
  if (k.compileError !== undefined) return typeof k.evm === 'string' ? 'solc-accepts' : 'reject-both';
  if (k.evm === false) return 'svm-only';
  if (typeof k.evm === 'string') return 'solc-accepts';
  return 'compared';
}

const entries: Entry[] = [];
for (const [file, cases] of Object.entries(CORPUS)) {
  cases.forEach((k, i) => entries.push({ id: `${file}/${k.name}`, file: `${file}-${i}.sol`, k, kind: kindOf(k) }));
}
const compared = entries.filter((e) => e.kind === 'compared');
const checked = entries.filter((e) => e.kind !== 'compared');

let built: { out: SolcOutput; rejected: Map<string, string> };
let analysed: { out: SolcOutput; rejected: Map<string, string> };

beforeAll(() => {
  // one solc run for what is compared (bytecode), one for the claims (analysis only); both cached on disk
  built = solcCompileEach(Object.fromEntries(compared.map((e) => [e.file, HEADER + sourceOf(e.k)])));
  analysed = solcCompileEach(Object.fromEntries(checked.map((e) => [e.file, HEADER + sourceOf(e.k)])), false);
}, 300_000);

test('most of the corpus is compared with the EVM', () => {
  const by = (kind: Kind) => entries.filter((e) => e.kind === kind).length;
  console.log(
    `differential: ${by('compared')} of ${entries.length} corpus cases run on solc + EVM; ` +
      `${by('reject-both')} compile errors rejected by both; ${by('svm-only')} SolidVM-only (solc rejects them); ${by('solc-accepts')} accepted by solc but not compared (reason given)`,
  );
  expect(by('compared')).toBeGreaterThanOrEqual(MIN_COMPARED);
});

describe('differential: SolidVM vs solc + EVM', () => {
  for (const e of compared) {
    const { k } = e;
    test(e.id, async () => {
      const solcError = built.rejected.get(e.file);
      if (solcError) throw new Error(`solc rejects the case (mark it evm: false if it is SolidVM-only):\n${solcError}`);
      const contract = built.out.contracts[e.file]?.[k.contract ?? 'C'];
      if (!contract) throw new Error('solc produced no contract');
      const chain = new Chain();
      const peer = await EvmPeer.create();
      const svm = chain.create(sourceOf(k), k.contract ?? 'C', k.ctorArgs);
      const evm = await peer.deploy(contract, k.ctorArgs, ALICE);
      // a failure's message is compared when the EVM's revert data carries one (a reason, a panic, a declared error)
      const svmMessage = svm.ok ? undefined : svm.message;
      expect({ create: svm.ok, message: svmMessage }).toEqual({ create: evm.out.ok, message: evm.out.ok ? undefined : (evm.out.message ?? svmMessage) });
      if (!svm.ok) return;
      // same creator and nonce: the two VMs give the contract the same address
      expect(svm.address).toBe(evm.address);
      for (const c of k.calls ?? []) {
        const caller = c.caller ?? ALICE;
        const a = chain.call(svm.address!, c.method, c.args, caller);
        const b = await peer.call(contract, evm.address!, c.method, c.args, caller);
        const what = `${c.method}(${JSON.stringify(c.args)})`;
        const aMessage = a.ok ? undefined : a.message;
        expect({ what, ok: a.ok, message: aMessage }).toEqual({ what, ok: b.ok, message: b.ok ? undefined : (b.message ?? aMessage) });
        if (a.ok) expect({ what, values: a.returnValues }).toEqual({ what, values: b.returnValues });
      }
    });
  }
});

describe('solc agrees with what the corpus says of the other cases', () => {
  for (const e of checked) {
    test(`${e.id} (${e.kind})`, () => {
      const rejected = analysed.rejected.has(e.file);
      if (e.kind === 'solc-accepts') {
        if (rejected) throw new Error(`the case gives a reason for not being compared, but solc rejects it anyway (mark it evm: false):\n${analysed.rejected.get(e.file)}`);
        return;
      }
      if (!rejected) {
        throw new Error(
          e.kind === 'svm-only'
            ? 'solc accepts this SolidVM-only case: compare it with the EVM (drop evm: false), or say why not (evm: "<reason>")'
            : 'solc accepts what SolidVM rejects: say why (evm: "<reason>")',
        );
      }
    });
  }
});
