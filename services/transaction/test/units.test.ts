// Pure parts, without infrastructure: request items to signed fields, receipts
// to results, and the HTTP schemas (compiled by a strict ajv, the gateway's validator).
import { Ajv } from 'ajv';
import type { CreatedContract, Transaction, Xabi } from '@platform/common';
import { createHash } from 'node:crypto';
import { draftsOf } from '../src/drafts.js';
import { admittedMessages } from '../src/outbox.js';
import { finalResult, hex64 } from '../src/results.js';
import { fillParamsSchema, rawTransactionBodySchema, resultsBodySchema, transactionBodySchema, transactionQuerySchema, txResultSchema } from '@platform/bus';
import { execResult, receipt } from './helpers.js';

const XABI = { funcs: {}, constr: null, vars: {}, types: {}, modifiers: {}, events: {}, kind: 'ContractKind', using: {} } as Xabi;

describe('transaction - drafts', () => {
  test('`contractName` stands for `contract`; the service’s own metadata keys win over the user’s', () => {
    const [create, transfer] = draftsOf(
      [
        { type: 'CONTRACT', payload: { contractName: 'A', src: 'contract A {}', metadata: { VM: 'SolidVM', name: 'B', history: 'A', noindex: true } } },
        { type: 'TRANSFER', payload: { toAddress: '0x' + 'AB'.repeat(20), value: '123456789012345678901234567890', metadata: { funcName: 'steal' } } },
      ],
      undefined,
      null,
    );
    expect(create.metadata).toEqual({ VM: 'SolidVM', name: 'A', args: '{}', history: 'A', noindex: 'true' });
    expect(transfer).toMatchObject({ to: 'ab'.repeat(20), value: 123456789012345678901234567890n, metadata: {} });
    expect(create).toMatchObject({ gasLimit: 32_100_000_000n, gasPrice: 1n, chainId: '' });
  });

  test('the chainid query parameter applies to items without their own', () => {
    const chain = 'AA'.repeat(32);
    const [d] = draftsOf([{ type: 'FUNCTION', payload: { contractAddress: 'cc'.repeat(20), method: 'f' } }], undefined, `0x${chain}`);
    expect(d.chainId).toBe(chain.toLowerCase());
  });
});

describe('transaction - results of receipts', () => {
  const tx = (overrides: Partial<Transaction>): Transaction => ({
    hash: '11'.repeat(32),
    chainId: '',
    from: '22'.repeat(20),
    nonce: 3,
    gasPrice: '1',
    gasLimit: '100',
    value: '0',
    to: null,
    initOrData: Buffer.from('contract App {}').toString('hex'),
    metadata: { VM: 'SolidVM', name: 'App' },
    r: '33'.repeat(32),
    s: '44'.repeat(32),
    v: 27,
    signingForm: 'platform',
    origin: 'vault',
    submitter: null,
    admittedAt: 0,
    ...overrides,
  });
  const contract = (name: string, address: string, appName: string | null): CreatedContract => ({ address, chainId: '', name, codeHash: '55'.repeat(32), vm: 'SolidVM', creatorOrg: null, appName, xabi: XABI });

  test('an upload’s data names the uploaded contract, not one its constructor created with `new`', () => {
    const t = tx({});
    const r = receipt(t, { contractsCreated: [contract('Child', 'c1'.repeat(20), 'App'), contract('App', 'a1'.repeat(20), null)] });
    const result = finalResult(execResult(1, [r]), r, t);
    expect(result.txResult!.contractsCreated).toBe(`${'c1'.repeat(20)},${'a1'.repeat(20)}`);
    expect(result.data).toMatchObject({ tag: 'Upload', contents: { name: 'App', address: 'a1'.repeat(20), src: 'contract App {}' } });
  });

  test('a private chain’s results carry its ID; a failure has no data', () => {
    const chain = 'cd'.repeat(32);
    const t = tx({ chainId: chain, to: 'aa'.repeat(20), initOrData: '', metadata: { VM: 'SolidVM', funcName: 'f' } });
    const r = receipt(t, { status: 'Failure', message: 'require failed', kind: 'EVM' });
    expect(finalResult(execResult(2, [r], chain), r, t)).toMatchObject({ status: 'Failure', data: null, txResult: { chainId: chain, kind: 'EVM', status: 'failure' } });
  });

  test('amounts are 64 hex digits', () => {
    expect(hex64('0')).toBe('0'.repeat(64));
    expect(hex64('115792089237316195423570985008687907853269984665640564039457584007913129639935')).toBe('f'.repeat(64));
  });
});

describe('transaction - HTTP schemas', () => {
  // fastify's ajv, with strictTypes an error instead of a logged warning: no union types, no type-less applicators
  const ajv = new Ajv({ strictSchema: true, strictTypes: true, allErrors: false, coerceTypes: false });
  const validate = (schema: object, value: unknown) => {
    const check = ajv.compile(schema);
    return check(value) ? null : check.errors!.map((e) => `${e.instancePath} ${e.message}`).join('; ');
  };

  test('the spec’s bodies pass', () => {
    expect(
      validate(transactionBodySchema, {
        txs: [
          { type: 'CONTRACT', payload: { contract: 'A', src: 'contract A {}', args: {}, metadata: { VM: 'SolidVM', history: '' } } },
          { type: 'CONTRACT', payload: { contractName: 'A', src: { 'a.sol': 'contract A {}' } } },
          { type: 'FUNCTION', payload: { contractName: 'A', contractAddress: `0x${'ab'.repeat(20)}`, method: 'f', args: { x: 1 }, value: '0', chainid: 'ef'.repeat(32), extra: 1 } },
          { type: 'TRANSFER', payload: { toAddress: 'ab'.repeat(20), value: '1000000000000000000000000' } },
        ],
        txParams: { gasLimit: 100000, gasPrice: 1 },
      }),
    ).toBeNull();
    expect(validate(rawTransactionBodySchema, { nonce: 0, gasPrice: 1, gasLimit: 1, to: null, value: 0, initOrData: '', r: '0x' + '1'.repeat(64), s: '2'.repeat(64), v: 27, metadata: { VM: 'SolidVM' } })).toBeNull();
    expect(validate(rawTransactionBodySchema, { nonce: '5', gasPrice: 1, gasLimit: 1, to: '', value: 0, initOrData: '0x', r: '01', s: '02', address: 'ab'.repeat(20) })).toBeNull();
    expect(validate(resultsBodySchema, ['ab'.repeat(32), `0x${'cd'.repeat(32)}`])).toBeNull();
    expect(validate(fillParamsSchema, { address: 'ab'.repeat(20) })).toBeNull();
    expect(validate(transactionQuerySchema, { resolve: 'true', chainid: 'ab'.repeat(32) })).toBeNull();
    expect(validate(txResultSchema, { status: 'Pending', hash: 'ab'.repeat(32), txResult: null, data: null })).toBeNull();
  });

  test('bad bodies fail at the field', () => {
    expect(validate(transactionBodySchema, { txs: [] })).toMatch(/^\/txs /);
    expect(validate(transactionBodySchema, { txs: [{ type: 'DEPLOY', payload: {} }] })).toMatch(/^\/txs\/0\/type /);
    expect(validate(transactionBodySchema, { txs: [{ type: 'FUNCTION', payload: { contractAddress: 'ab'.repeat(20) } }] })).toMatch(/^\/txs\/0\/payload .*method/);
    expect(validate(transactionBodySchema, { txs: [{ type: 'TRANSFER', payload: { toAddress: 'xyz', value: 1 } }] })).toMatch(/^\/txs\/0\/payload\/toAddress /);
    expect(validate(transactionBodySchema, { txs: [{ type: 'TRANSFER', payload: { toAddress: 'ab'.repeat(20), value: 1.5 } }] })).toMatch(/^\/txs\/0\/payload\/value /);
    expect(validate(rawTransactionBodySchema, { nonce: 0, gasPrice: 1, gasLimit: 1, value: 0, initOrData: 'zz', r: '01', s: '02' })).toMatch(/^\/initOrData /);
    expect(validate(rawTransactionBodySchema, { nonce: 0, gasPrice: 1, gasLimit: 1, value: 0, initOrData: '', r: '01'.repeat(33), s: '02' })).toMatch(/^\/r /);
    expect(validate(rawTransactionBodySchema, { nonce: 0, gasPrice: 1, gasLimit: 1, value: 0, initOrData: '', r: '01', s: '02', v: 29 })).toMatch(/^\/v /);
    expect(validate(resultsBodySchema, ['abc'])).toMatch(/^\/0 /);
  });
});

describe('outbox messages', () => {
  const m = (hash: string, chainId: string, size = 10) => ({ hash, chainId, body: JSON.stringify({ hash, pad: 'x'.repeat(size) }) });

  test('one message per chain in order, split below the size; a lone transaction is its body under its hash', () => {
    const messages = [m('a1', ''), m('b1', 'c'.repeat(64)), m('a2', ''), m('a3', '', 260), m('a4', '')];
    const out = admittedMessages(messages, 300);
    expect(out.map((o) => [o.chainId, o.hashes])).toEqual([
      ['', ['a1', 'a2']],
      ['', ['a3']],
      ['', ['a4']],
      ['c'.repeat(64), ['b1']],
    ]);
    expect(out.every((o) => Buffer.byteLength(o.data) <= 300)).toBe(true);
    expect(out[0].data).toBe(`[${messages[0].body},${messages[2].body}]`);
    expect(out[0].msgID).toBe(`list:${createHash('sha256').update('a1,a2').digest('hex')}`);
    expect(out[1]).toEqual({ chainId: '', hashes: ['a3'], msgID: 'a3', data: messages[3].body });
    // the same list again: the same msgID, so the stream drops a retry
    expect(admittedMessages(messages, 300).map((o) => o.msgID)).toEqual(out.map((o) => o.msgID));
  });
});
