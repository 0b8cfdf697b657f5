// gasUsed against an outside oracle: @ethereumjs/vm's runTx, which charges the
// intrinsic cost and caps refunds itself, on its own state. The same signed
// transactions run there and through createContract/callContract here must
// use the same gas: this pins our intrinsic gas, refund cap, warm addresses
// and EIP-2200 originals to what Ethereum computes.
import { Hardfork, Mainnet, createCustomCommon } from '@ethereumjs/common';
import { createBlock } from '@ethereumjs/block';
import { createLegacyTx } from '@ethereumjs/tx';
import { createAddressFromString, createAccount, hexToBytes as ejsHex } from '@ethereumjs/util';
import { createVM, runTx, type VM } from '@ethereumjs/vm';
import { Interface, Wallet } from 'ethers';
import { TOKEN, callContract, compileSolidity, context, createContract, freshState } from './helpers.js';
import { MATH, VAULT } from './contracts.js';

const KEY = '0x' + '42'.repeat(32);
const SENDER = new Wallet(KEY).address.slice(2).toLowerCase();
const GAS_LIMIT = 5_000_000n;
// chain ID 1337: EIP-155 signing has no form for chain 0; CHAINID costs the same whatever it returns
const common = createCustomCommon({ chainId: 1337 }, Mainnet, { hardfork: Hardfork.Cancun });

class Oracle {
  nonce = 0n;
  private constructor(readonly vm: VM) {}
  static async create(): Promise<Oracle> {
    const vm = await createVM({ common });
    await vm.stateManager.putAccount(createAddressFromString('0x' + SENDER), createAccount({ nonce: 0n, balance: 10n ** 24n }));
    return new Oracle(vm);
  }
  async send(to: string | undefined, data: string, value = 0n): Promise<{ gas: bigint; ok: boolean; created?: string }> {
    const tx = createLegacyTx({ nonce: this.nonce++, gasPrice: 1n, gasLimit: GAS_LIMIT, to: to ? createAddressFromString('0x' + to) : undefined, data: ejsHex(('0x' + data) as `0x${string}`), value }, { common }).sign(ejsHex(KEY as `0x${string}`));
    const block = createBlock({ header: { number: 7n, timestamp: 1_700_000_000n, gasLimit: 30_000_000n, baseFeePerGas: 0n } }, { common });
    const r = await runTx(this.vm, { tx, block, skipBlockGasLimitValidation: true });
    return { gas: r.totalGasSpent, ok: r.execResult.exceptionError === undefined, created: r.createdAddress?.toString().slice(2) };
  }
}

test('gasUsed equals runTx: creations, calls, storage set/reset/clear, reverts, panics, value', async () => {
  const oracle = await Oracle.create();
  const s = freshState();
  s.putAccount(SENDER, { nonce: 0n, balance: 10n ** 24n, codeHash: null });
  const ctx = context({ gasEnabled: true, gasLimit: GAS_LIMIT, origin: SENDER });
  let nonce = 0n;
  const ours = {
    create: async (src: string, name: string, args: unknown, value = 0n) => {
      const r = await createContract(s, { ...ctx, tx: { ...ctx.tx, value } }, { creator: SENDER, src, contractName: name, args, nonce: nonce++ });
      return r;
    },
    call: async (address: string, data: string, value = 0n) => {
      nonce++;
      return callContract(s, { ...ctx, tx: { ...ctx.tx, value } }, { caller: SENDER, address, data });
    },
  };

  const token = compileSolidity(TOKEN).contracts.Token;
  const ti = new Interface(token.abi as never);
  const mine = await ours.create(TOKEN, 'Token', ['Gold', 1000]);
  const theirs = await oracle.send(undefined, token.bin + ti.encodeDeploy(['Gold', 1000]).slice(2));
  expect(mine.address).toBe(theirs.created);
  expect(mine.gasUsed).toBe(theirs.gas);
  const t = mine.address!;

  const calls: Array<[string, string]> = [
    ['transfer to a new holder (zero → non-zero slot)', ti.encodeFunctionData('transfer', ['0x' + 'b0'.repeat(20), 10])],
    ['transfer again (non-zero → non-zero)', ti.encodeFunctionData('transfer', ['0x' + 'b0'.repeat(20), 10])],
    ['transfer of the whole rest (non-zero → zero: a refund)', ti.encodeFunctionData('transfer', ['0x' + 'c0'.repeat(20), 980])],
    ['require failure', ti.encodeFunctionData('transfer', ['0x' + 'b0'.repeat(20), 1])],
    ['a bool write and an event', ti.encodeFunctionData('setPaused', [true])],
    ['long string write', ti.encodeFunctionData('rename', ['a name that is longer than thirty-one bytes'])],
    ['long string cleared (refunds capped at a fifth)', ti.encodeFunctionData('rename', [''])],
    ['view call', ti.encodeFunctionData('info', [])],
  ];
  const oks: boolean[] = [];
  for (const [what, data] of calls) {
    const a = await ours.call(t, data.slice(2));
    const b = await oracle.send(t, data.slice(2));
    expect([what, a.ok, a.gasUsed]).toEqual([what, b.ok, b.gas]);
    oks.push(a.ok);
  }
  expect(oks).toEqual([true, true, true, false, true, true, true, true]);

  const math = compileSolidity(MATH).contracts.Math;
  const mi = new Interface(math.abi as never);
  const m = (await ours.create(MATH, 'Math', [])).address!;
  const mo = (await oracle.send(undefined, math.bin)).created!;
  // an overflow panic, a write that overflows (panic after SLOAD), a write
  const expected = [false, false, true];
  for (const [i, data] of [mi.encodeFunctionData('add', [200, 100]), mi.encodeFunctionData('bump', [60]), mi.encodeFunctionData('bump', [10])].entries()) {
    const a = await ours.call(m, data.slice(2));
    const b = await oracle.send(mo, data.slice(2));
    expect([a.ok, a.gasUsed]).toEqual([expected[i], b.gas]);
    expect(b.ok).toBe(expected[i]);
  }

  const vault = compileSolidity(VAULT).contracts.Vault;
  const vi = new Interface(vault.abi as never);
  const v = (await ours.create(VAULT, 'Vault', [], 5n)).address!;
  const vo = (await oracle.send(undefined, vault.bin, 5n)).created!;
  for (const [data, value] of [[vi.encodeFunctionData('deposit', []), 100n], [vi.encodeFunctionData('withdraw', [40]), 0n]] as const) {
    const a = await ours.call(v, data.slice(2), value);
    const b = await oracle.send(vo, data.slice(2), value);
    expect([a.ok, a.gasUsed]).toEqual([b.ok, b.gas]);
  }
});
