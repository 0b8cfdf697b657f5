// Results from execution, notices, and the invariants broken on purpose: a
// crash between the admission commit and the publish (outbox), a crash
// between the results commit and the ack (redelivery), a duplicate result.
// The tests play the block service on the real EXEC stream.
import { refusal } from '@platform/common/testing';
import { recoverAddress, Wallet } from 'ethers';
import { STREAMS, TX, call, declaredStream, ensureStream, type SubmitItem, type TxDoneNotice } from '@platform/bus';
import { createLogger, type CreatedContract, type Transaction, type TxResult, type Xabi } from '@platform/common';
import { AdmittedCache } from '../src/admitted-cache.js';
import { EXEC_CONSUMER, doneNotices, recordExecResult } from '../src/consumer.js';
import { createPool, migrate } from '../src/db.js';
import { Outbox } from '../src/outbox.js';
import { ChainSealer } from '../src/chain-seal.js';
import { admittedByHash, ethersSigningHash, execResult, fieldsOf, fixture, listMsgId, publishExec, receipt, until, type Fixture } from './helpers.js';

const SRC = 'contract Box { uint v; constructor(uint _v) { v = _v; } function get() public returns (uint) { return v; } }';
const BOX = 'b0'.repeat(20);
const XABI: Xabi = { funcs: {}, constr: null, vars: {}, types: {}, modifiers: {}, events: {}, kind: 'ContractKind', using: {} };
const created: CreatedContract = { address: BOX, chainId: '', name: 'Box', codeHash: 'c5'.repeat(32), vm: 'SolidVM', creatorOrg: null, appName: null, xabi: XABI };

const upload: SubmitItem = { type: 'CONTRACT', payload: { contract: 'Box', src: SRC, args: { _v: 5 }, metadata: { VM: 'SolidVM' } } };
const get: SubmitItem = { type: 'FUNCTION', payload: { contractAddress: BOX, method: 'get', args: {}, metadata: { VM: 'SolidVM' } } };
const send: SubmitItem = { type: 'TRANSFER', payload: { toAddress: 'ee'.repeat(20), value: 42 } };

let height = 0;

describe('transaction - results, notices and the invariants', () => {
  let f: Fixture;

  beforeAll(async () => {
    f = await fixture();
  });
  afterAll(async () => {
    await f?.stop();
  });

  /** The notices' results of the hashes, collected from before the results are published, in the order of `hashes`. */
  function notices(hashes: string[]): Promise<TxResult[]> {
    const wanted = new Set(hashes);
    const seen = new Map<string, TxResult>();
    // subscribed before this returns: the server has the SUB before anything the test publishes next on this connection
    const sub = f.nc.subscribe('tx.done', { timeout: 10_000 });
    return (async () => {
      for await (const m of sub) {
        for (const result of m.json<TxDoneNotice>().results) if (wanted.has(result.hash)) seen.set(result.hash, result);
        if (seen.size === wanted.size) break;
      }
      sub.unsubscribe();
      if (seen.size < wanted.size) throw new Error(`no notice for ${hashes.filter((h) => !seen.has(h)).join(', ')}`);
      return hashes.map((h) => seen.get(h)!);
    })();
  }

  async function transactions(hashes: string[]) {
    const published = await admittedByHash(f, hashes);
    return hashes.map((h) => published.get(h)![0].tx);
  }

  test('an ExecResult makes Success and Failure results with every field, announced in the block’s tx.done notice', async () => {
    await f.start();
    await f.user('rita');
    const pendings = await call(f.nc, TX.submit, { username: 'rita', organization: null, chainId: null, transactions: [upload, get, get, send] });
    const hashes = pendings.map((p) => p.hash);
    const [create, ok, bad, transfer] = await transactions(hashes);
    const done = notices(hashes);
    const exec = execResult(++height, [
      receipt(create, {
        contractsCreated: [created],
        gasUsed: '21000',
        etherUsed: '21000',
        stateChanges: [{ address: BOX, chainId: '', contractName: 'Box', codeHash: created.codeHash, vm: 'SolidVM', created: true, deleted: false, state: { v: '5' }, diff: { '.v': '5', '.old': null } }],
      }),
      receipt(ok, { response: '["5"]', returnValues: ['5'] }),
      receipt(bad, { status: 'Failure', message: 'unknown method get', gasUsed: '7' }),
      receipt(transfer, { kind: 'EVM' }),
    ]);
    await publishExec(f, exec);

    const announced = await done;
    const stored = await call(f.nc, TX.results, { username: 'reader', organization: null, hashes });
    expect(announced).toEqual(stored);
    expect(stored.map((r) => r.status)).toEqual(['Success', 'Success', 'Failure', 'Success']);
    expect(stored[0].txResult).toEqual({
      blockHash: exec.block.hash,
      transactionHash: create.hash,
      message: 'Success!',
      response: '[]',
      contractsCreated: BOX,
      contractsDeleted: '',
      gasUsed: (21000).toString(16).padStart(64, '0'),
      etherUsed: (21000).toString(16).padStart(64, '0'),
      stateDiff: JSON.stringify({ [BOX]: { '.v': '5', '.old': null } }),
      newStorage: JSON.stringify({ [BOX]: { '.v': '5' } }),
      deletedStorage: JSON.stringify({ [BOX]: { '.old': null } }),
      time: 1,
      kind: 'SolidVM',
      chainId: null,
      trace: '',
      status: 'success',
    });
    expect(stored[0].data).toEqual({
      tag: 'Upload',
      contents: { bin: '', 'bin-runtime': '', address: BOX, chainId: null, codeHash: { kind: 'SolidVM', digest: created.codeHash }, name: 'Box', src: SRC, xabi: XABI },
    });
    expect(stored[1].data).toEqual({ tag: 'Call', contents: ['5'] });
    expect(stored[2]).toMatchObject({ status: 'Failure', data: null, txResult: { message: 'unknown method get', status: 'failure', gasUsed: '7'.padStart(64, '0') } });
    expect(stored[3].data).toEqual({
      tag: 'Send',
      contents: {
        hash: transfer.hash,
        from: transfer.from,
        to: 'ee'.repeat(20),
        value: '42',
        nonce: transfer.nonce,
        gasLimit: transfer.gasLimit,
        gasPrice: transfer.gasPrice,
        codeOrData: '',
        r: transfer.r,
        s: transfer.s,
        v: transfer.v.toString(16),
        chainId: null,
        metadata: {},
      },
    });
  });

  test('results: in the order asked, Pending until final, 404 naming every unknown hash', async () => {
    await f.start();
    await f.user('sam');
    const [a, b] = await call(f.nc, TX.submit, { username: 'sam', organization: null, chainId: null, transactions: [get, get] });
    const unknown = 'ff'.repeat(32);
    expect(await call(f.nc, TX.results, { username: 'reader', organization: null, hashes: [b.hash, `0x${a.hash.toUpperCase()}`] })).toEqual([b, a]);
    const err = await refusal(call(f.nc, TX.results, { username: 'reader', organization: null, hashes: [a.hash, unknown, 'ee'.repeat(32)] }));
    expect(err).toMatchObject({ code: 'TRANSACTION_NOT_FOUND', status: 404, details: { unknown: [unknown, 'ee'.repeat(32)] } });
    expect(await refusal(call(f.nc, TX.results, { username: 'reader', organization: null, hashes: ['abc'] }))).toMatchObject({ code: 'BAD_HEX', details: { field: '[0]' } });
  });

  test('a raw transaction’s result has data null; a result of a transaction admitted elsewhere is kept too', async () => {
    await f.start();
    const wallet = Wallet.createRandom();
    const fields = { nonce: 0, gasPrice: 1, gasLimit: 1000, to: BOX, value: 0, initOrData: '', metadata: { VM: 'SolidVM', funcName: 'get', args: '()' } };
    const sig = wallet.signingKey.sign(ethersSigningHash(fields));
    const raw = await call(f.nc, TX.submitRaw, {
      username: 'u',
      organization: null,
      chainId: null,
      transaction: { ...fields, to: `0x${BOX}`, initOrData: '0x', r: sig.r, s: sig.s, v: sig.v },
    });
    const [tx] = await transactions([raw.hash]);
    const foreign = 'fa'.repeat(32);
    const done = notices([raw.hash, foreign]);
    await publishExec(f, execResult(++height, [receipt(tx, { returnValues: ['5'] }), receipt({ hash: foreign, from: 'fa'.repeat(20) }, { returnValues: ['1'] })]));
    const [mine, theirs] = await done;
    expect(mine).toMatchObject({ status: 'Success', data: null, txResult: { message: 'Success!' } });
    expect(theirs).toMatchObject({ status: 'Success', hash: foreign, data: null });
  });

  test('a duplicate ExecResult (another stream message) never overwrites a final result', async () => {
    const svc = await f.start();
    await f.user('tina');
    const [p] = await call(f.nc, TX.submit, { username: 'tina', organization: null, chainId: null, transactions: [get] });
    const [tx] = await transactions([p.hash]);
    const h = ++height;
    const first = notices([p.hash]);
    await publishExec(f, execResult(h, [receipt(tx, { returnValues: ['1'] })]));
    const [final] = await first;
    // outside the duplicate window the stream would store it again: a new msgID does the same here
    const again = notices([p.hash]);
    const seq = await publishExec(f, execResult(h, [receipt(tx, { status: 'Failure', message: 'other' })]), `replay-${h}`);
    expect(await again).toEqual([final]);
    await until('progress', async () => (await f.sql<{ last_seq: string }>(svc.databaseUrl, 'SELECT last_seq FROM tx.exec_progress'))[0]?.last_seq === String(seq));
    expect(await call(f.nc, TX.results, { username: 'reader', organization: null, hashes: [p.hash] })).toEqual([final]);
  });

  test('--rebuild given again at a restart, its results stream not declared anew (a Kubernetes container restarted with its args): every result forgotten is recorded again from the stream, none stays Pending', async () => {
    const svc = await f.start();
    await f.user('rhea');
    const pendings = await call(f.nc, TX.submit, { username: 'rhea', organization: null, chainId: null, transactions: [get, get] });
    const hashes = pendings.map((p) => p.hash);
    const [one, two] = await transactions(hashes);
    const done = notices(hashes);
    await publishExec(f, execResult(++height, [receipt(one, { returnValues: ['3'] })]));
    const seq = await publishExec(f, execResult(++height, [receipt(two, { status: 'Failure', message: 'no' })]));
    const finals = await done;

    await f.start({ databaseUrl: svc.databaseUrl, rebuild: true });
    const results = () => call(f.nc, TX.results, { username: 'reader', organization: null, hashes });
    await until('the results again', async () => (await results()).every((r) => r.status !== 'Pending'));
    expect(await results()).toEqual(finals);
    const [progress] = await f.sql<{ last_seq: string }>(svc.databaseUrl, 'SELECT last_seq FROM tx.exec_progress');
    expect(Number(progress.last_seq)).toBe(seq);
  });

  test('a crash between the results commit and the ack: the redelivered message changes nothing, and its notices go out again', async () => {
    const first = await f.start({ faults: { beforeExecAck: () => { throw new Error('simulated crash before ack'); } } });
    await f.user('uma');
    const [p] = await call(f.nc, TX.submit, { username: 'uma', organization: null, chainId: null, transactions: [get] });
    const [tx] = await transactions([p.hash]);
    const firstNotice = notices([p.hash]);
    const seq = await publishExec(f, execResult(++height, [receipt(tx, { returnValues: ['9'] })]));
    const [final] = await firstNotice;
    const before = await f.sql(first.databaseUrl, 'SELECT hash, recorded_at, exec_seq FROM tx.results WHERE hash = $1', [p.hash]);
    expect(before).toHaveLength(1);

    const redelivered = notices([p.hash]);
    await f.start({ databaseUrl: first.databaseUrl }); // the crashed instance stops without acking
    expect(await redelivered).toEqual([final]);
    expect(await f.sql(first.databaseUrl, 'SELECT hash, recorded_at, exec_seq FROM tx.results WHERE hash = $1', [p.hash])).toEqual(before);
    expect(await f.sql(first.databaseUrl, 'SELECT last_seq::int AS seq FROM tx.exec_progress')).toEqual([{ seq }]);
    // and the consumer moves on
    const [q] = await call(f.nc, TX.submit, { username: 'uma', organization: null, chainId: null, transactions: [get] });
    const [next] = await transactions([q.hash]);
    const nextNotice = notices([q.hash]);
    await publishExec(f, execResult(++height, [receipt(next)]));
    expect((await nextNotice)[0].status).toBe('Success');
  });

  /**
   * Two blocks of one transaction each, recorded and acknowledged; then what a
   * database crash that loses the last commits of results (synchronous_commit
   * off) leaves: the progress back where it was before them, their results gone.
   */
  async function lostCommits(username: string): Promise<{ svc: Awaited<ReturnType<Fixture['start']>>; hashes: string[]; announced: TxResult[]; seqs: number[] }> {
    const svc = await f.start();
    await f.user(username);
    const hashes: string[] = [];
    const announced: TxResult[] = [];
    const seqs: number[] = [];
    for (const item of [get, send]) {
      const [p] = await call(f.nc, TX.submit, { username, organization: null, chainId: null, transactions: [item] });
      const [tx] = await transactions([p.hash]);
      const done = notices([p.hash]);
      seqs.push(await publishExec(f, execResult(++height, [receipt(tx, { returnValues: ['7'] })])));
      announced.push(...(await done));
      hashes.push(p.hash);
    }
    const jsm = await f.js.jetstreamManager();
    await until('the consumer to acknowledge both', async () => (await jsm.consumers.info(STREAMS.exec.name, EXEC_CONSUMER)).ack_floor.stream_seq >= seqs[1]);
    expect(await f.sql(svc.databaseUrl, 'SELECT last_seq::int AS seq FROM tx.exec_progress')).toEqual([{ seq: seqs[1] }]);
    await f.sql(svc.databaseUrl, 'DELETE FROM tx.results WHERE hash = ANY($1)', [hashes]);
    await f.sql(svc.databaseUrl, 'UPDATE tx.exec_progress SET last_seq = $1', [seqs[0] - 1]);
    return { svc, hashes, announced, seqs };
  }

  async function storedResults(databaseUrl: string, hashes: string[]) {
    return f.sql<{ hash: string; status: string; exec_seq: number }>(databaseUrl, 'SELECT hash, status, exec_seq::int FROM tx.results WHERE hash = ANY($1) ORDER BY exec_seq', [hashes]);
  }

  test('results a database crash lost after their messages were acknowledged are recorded again from the stream at the next start, as announced', async () => {
    const { svc, hashes, announced, seqs } = await lostCommits('lena');
    const again = notices(hashes);
    await f.start({ databaseUrl: svc.databaseUrl });
    expect(await again).toEqual(announced);
    expect(await storedResults(svc.databaseUrl, hashes)).toEqual(hashes.map((hash, i) => ({ hash, status: 'Success', exec_seq: seqs[i] })));
    // a fresh process answers from the database: the results as they were announced, their data included
    expect(await call(f.nc, TX.results, { username: 'reader', organization: null, hashes })).toEqual(announced);
    expect(await f.sql(svc.databaseUrl, 'SELECT last_seq::int AS seq FROM tx.exec_progress')).toEqual([{ seq: seqs[1] }]);
  });

  test('while the service runs: the next execution result finds the store behind and records the lost ones before it', async () => {
    const { svc, hashes, announced, seqs } = await lostCommits('lina');
    const [p] = await call(f.nc, TX.submit, { username: 'lina', organization: null, chainId: null, transactions: [get] });
    const [tx] = await transactions([p.hash]);
    const done = notices([...hashes, p.hash]);
    const seq = await publishExec(f, execResult(++height, [receipt(tx, { returnValues: ['8'] })]));
    const [first, second, third] = await done;
    expect([first, second]).toEqual(announced);
    expect(third).toMatchObject({ status: 'Success', hash: p.hash, data: { tag: 'Call', contents: ['8'] } });
    expect(await storedResults(svc.databaseUrl, [...hashes, p.hash])).toEqual([...hashes, p.hash].map((hash, i) => ({ hash, status: 'Success', exec_seq: [...seqs, seq][i] })));
    expect(await f.sql(svc.databaseUrl, 'SELECT last_seq::int AS seq FROM tx.exec_progress')).toEqual([{ seq }]);
  });

  test('while the service runs: after its database connections fail (a restarted database), the lost results are recorded again without waiting for a block', async () => {
    const { svc, hashes, announced, seqs } = await lostCommits('lola');
    const again = notices(hashes);
    // what a database restart does to the service's idle connections
    await f.sql(svc.databaseUrl, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'transaction'");
    expect(await again).toEqual(announced);
    expect(await storedResults(svc.databaseUrl, hashes)).toEqual(hashes.map((hash, i) => ({ hash, status: 'Success', exec_seq: seqs[i] })));
  });

  test('catching up skips a message the stream no longer holds', async () => {
    const { svc, hashes, seqs } = await lostCommits('lise');
    // the first lost block's message gone from the stream (an operator deleted it): only the second can be recorded again
    const jsm = await f.js.jetstreamManager();
    await jsm.streams.deleteMessage(STREAMS.exec.name, seqs[0]);
    const again = notices([hashes[1]]);
    await f.start({ databaseUrl: svc.databaseUrl });
    await again;
    expect(await storedResults(svc.databaseUrl, hashes)).toEqual([{ hash: hashes[1], status: 'Success', exec_seq: seqs[1] }]);
    expect(await f.sql(svc.databaseUrl, 'SELECT last_seq::int AS seq FROM tx.exec_progress')).toEqual([{ seq: seqs[1] }]);
  });

  test('recording: an exec sequence at or below the last applied one changes nothing', async () => {
    const pool = createPool(await f.database('tx_record'));
    try {
      await migrate(pool);
      const tx = { hash: 'a1'.repeat(32), from: 'a2'.repeat(20) };
      const applied = await recordExecResult(pool, 10, execResult(1, [receipt(tx, { returnValues: ['1'] })]));
      expect(applied).toMatchObject({ applied: true, results: [{ status: 'Success' }] });
      // the same sequence redelivered with other contents, and an older one: nothing is applied, the stored result is announced
      const redelivered = await recordExecResult(pool, 10, execResult(1, [receipt(tx, { status: 'Failure', message: 'x' })]));
      expect(redelivered).toEqual({ applied: false, results: applied.results });
      expect(await recordExecResult(pool, 9, execResult(1, [receipt({ hash: 'a3'.repeat(32), from: tx.from })]))).toEqual({ applied: false, results: [] });
      // a message whose predecessor (11) the store does not hold: the store is behind, nothing is recorded
      expect(await recordExecResult(pool, 12, execResult(3, [receipt({ hash: 'a4'.repeat(32), from: tx.from })]), undefined, 11)).toEqual({ applied: false, results: [], behind: 10 });
      const rows = await pool.query('SELECT hash FROM tx.results');
      expect(rows.rows).toEqual([{ hash: tx.hash }]);
      expect((await pool.query('SELECT last_seq::int AS seq FROM tx.exec_progress')).rows).toEqual([{ seq: 10 }]);
    } finally {
      await pool.end();
    }
  });

  test('recording: a transaction this process admitted is taken from its memory, one it did not from the database', async () => {
    await f.start();
    await f.user('cora');
    const [pend] = await call(f.nc, TX.submit, { username: 'cora', organization: null, chainId: null, transactions: [get] });
    const [tx] = await transactions([pend.hash]);
    // a database that never saw the transaction: only the memory can give its result data
    const pool = createPool(await f.database('tx_admitted_cache'));
    try {
      await migrate(pool);
      const memory = new AdmittedCache();
      memory.remember([tx], [JSON.stringify(tx)]);
      memory.rememberRaw(['d1'.repeat(32)]);
      const { results } = await recordExecResult(pool, 1, execResult(1, [receipt(tx, { returnValues: ['5'] }), receipt({ hash: 'd1'.repeat(32), from: tx.from })]), memory);
      expect(results.map((r) => r.data)).toEqual([{ tag: 'Call', contents: ['5'] }, null]);
      expect(memory.size).toBe(0);
      // not remembered, not stored: no data to give
      const other = { ...tx, hash: 'd2'.repeat(32) };
      const { results: unknown } = await recordExecResult(pool, 2, execResult(2, [receipt(other, { returnValues: ['5'] })]), memory);
      expect(unknown[0].data).toBeNull();
    } finally {
      await pool.end();
    }
  });

  test('admitted memory: over its budget it forgets the oldest first', () => {
    const memory = new AdmittedCache(100);
    const tx = (n: number) => ({ hash: String(n).padStart(64, '0') }) as Transaction;
    memory.remember([tx(1), tx(2)], ['x'.repeat(40), 'x'.repeat(40)]);
    memory.remember([tx(3)], ['x'.repeat(40)]);
    // one bigger than the whole budget is never kept
    memory.remember([tx(4)], ['x'.repeat(101)]);
    expect(memory.take([tx(1), tx(2), tx(3), tx(4)].map((t) => t.hash))).toEqual({ bodies: new Map([[tx(2).hash, tx(2)], [tx(3).hash, tx(3)]]), unknown: [tx(1).hash, tx(4).hash] });
  });

  test('the results endpoint answers the main chain\'s recent final results as announced, from memory, in order with those it reads', async () => {
    const svc = await f.start();
    await f.user('nora');
    const finals = (await call(f.nc, TX.submit, { username: 'nora', organization: null, chainId: null, transactions: [get, send] })).map((p) => p.hash);
    const [ok, transfer] = await transactions(finals);
    const done = notices(finals);
    await publishExec(f, execResult(++height, [receipt(ok, { response: '["5"]', returnValues: ['5'] }), receipt(transfer, { kind: 'EVM' })]));
    const announced = await done;
    // gone from the database: only the memory can answer them now
    await f.sql(svc.databaseUrl, 'DELETE FROM tx.results WHERE hash = ANY($1)', [finals]);
    const [pending] = await call(f.nc, TX.submit, { username: 'nora', organization: null, chainId: null, transactions: [get] });
    expect(await call(f.nc, TX.results, { hashes: [finals[1], pending.hash, finals[0], finals[1]], username: 'nora', organization: null })).toEqual([announced[1], pending, announced[0], announced[1]]);
    const unknown = 'ab'.repeat(32);
    expect(await refusal(call(f.nc, TX.results, { username: 'reader', organization: null, hashes: [finals[0], unknown] }))).toMatchObject({ code: 'TRANSACTION_NOT_FOUND', details: { unknown: [unknown] } });
    // a new instance has nothing in memory: it answers what the database has (admitted, without their results now)
    await f.start({ databaseUrl: svc.databaseUrl });
    expect((await call(f.nc, TX.results, { username: 'reader', organization: null, hashes: finals })).map((r) => r.status)).toEqual(['Pending', 'Pending']);
  });

  test('outbox: transactions stored but not published (a crash between) go out at the next start, with the same bytes, together under the msgID of their hashes', async () => {
    const crashed = await f.start({ faults: { beforePublish: () => { throw new Error('simulated crash before publish'); } } });
    await f.user('vera');
    const pendings = await call(f.nc, TX.submit, { username: 'vera', organization: null, chainId: null, transactions: [get, send] });
    const hashes = pendings.map((p) => p.hash);
    expect((await admittedByHash(f, hashes)).size).toBe(0);
    const stored = await f.sql<{ hash: string; body: string; unpublished: boolean }>(
      crashed.databaseUrl,
      'SELECT t.hash, t.body, o.hash IS NOT NULL AS unpublished FROM tx.transactions t LEFT JOIN tx.outbox o USING (hash) ORDER BY t.seq',
    );
    expect(stored.map((r) => [r.hash, r.unpublished])).toEqual(hashes.map((h) => [h, true]));

    await f.start({ databaseUrl: crashed.databaseUrl });
    const published = await admittedByHash(f, hashes);
    for (const row of stored) {
      const messages = published.get(row.hash)!;
      expect(messages).toHaveLength(1);
      expect(messages[0].msgId).toBe(listMsgId(hashes));
      expect(JSON.stringify(messages[0].tx)).toBe(row.body);
    }
    expect(await f.sql(crashed.databaseUrl, 'SELECT hash FROM tx.outbox')).toEqual([]);
  });

  test('outbox: what is published in one turn goes out as one message, each caller answered for its own', async () => {
    const svc = await f.start();
    const pool = createPool(svc.databaseUrl);
    try {
      const outbox = new Outbox(f.js, pool, pool, createLogger('outbox', 'silent'), new ChainSealer(f.nc));
      const hashOf = (n: number) => n.toString(16).padStart(64, 'f');
      const message = (n: number) => ({ hash: hashOf(n), chainId: '', body: JSON.stringify({ hash: hashOf(n), n }) });
      const acked = await Promise.all([outbox.publish([message(1)]), outbox.publish([message(2), message(3)]), outbox.publish([message(4)])]);
      expect(acked).toEqual([1, 2, 1]);
      const hashes = [1, 2, 3, 4].map((n) => message(n).hash);
      const published = await admittedByHash(f, hashes);
      expect(hashes.map((h) => published.get(h)?.map((m) => m.msgId))).toEqual(hashes.map(() => [listMsgId(hashes)]));
      await outbox.marksWritten();
    } finally {
      await pool.end();
    }
  });

  test('outbox: a failed publish is retried by the sweeper while the service runs', async () => {
    let failing = true;
    const svc = await f.start({
      outboxSweepMs: 200,
      faults: { beforePublish: () => { if (failing) throw new Error('NATS hiccup'); } },
    });
    await f.user('wes');
    const [p] = await call(f.nc, TX.submit, { username: 'wes', organization: null, chainId: null, transactions: [get] });
    failing = false;
    await until('the sweeper to publish', async () => (await admittedByHash(f, [p.hash])).get(p.hash));
    await until('the row marked', async () => (await f.sql(svc.databaseUrl, 'SELECT hash FROM tx.outbox WHERE hash = $1', [p.hash])).length === 0);
  });

  test("while the network's stream takes no publication, new submissions are refused with 503; what was admitted is ordered once it answers, and admission reopens", async () => {
    await f.start({ outboxSweepMs: 200 });
    await f.user('oona');
    // the stream gone is what a network without a majority of its servers looks like from here: nobody takes the append
    await f.jsm.streams.delete(STREAMS.tx.name);
    const [accepted] = await call(f.nc, TX.submit, { username: 'oona', organization: null, chainId: null, transactions: [get] });
    expect(accepted.status).toBe('Pending');
    const refused = await refusal(call(f.nc, TX.submit, { username: 'oona', organization: null, chainId: null, transactions: [get] }));
    expect(refused).toMatchObject({ code: 'UNAVAILABLE', status: 503, message: expect.stringMatching(/cannot order transactions now/) });
    await ensureStream(f.jsm, declaredStream(STREAMS.tx, { node: 'node1', replicas: 1 }));
    await until('the sweeper to publish what was admitted', async () => (await admittedByHash(f, [accepted.hash])).get(accepted.hash));
    const [next] = await call(f.nc, TX.submit, { username: 'oona', organization: null, chainId: null, transactions: [get] });
    expect(next.status).toBe('Pending');
  });

  test('faucet: the zero-hash Success while gas is disabled; a real transfer of 2000 tokens, exempt from the nonce limit, with gas', async () => {
    await f.start();
    const target = `0x${'d1'.repeat(20)}`;
    expect(await call(f.nc, TX.fill, { username: 'x', address: target })).toEqual({ status: 'Success', hash: '0'.repeat(64), txResult: null, data: null });

    const svc = await f.start({ env: { GAS_ENABLED: 'true', ACCOUNT_NONCE_LIMIT: '0' } });
    const fills = [await call(f.nc, TX.fill, { username: 'x', address: target }), await call(f.nc, TX.fill, { username: 'x', address: target })];
    const txs = await transactions(fills.map((r) => r.hash));
    expect(fills.map((r) => r.status)).toEqual(['Pending', 'Pending']);
    expect(txs.map((t) => [t.from, t.to, t.value, t.nonce, t.initOrData])).toEqual([
      [svc.faucetAddress, 'd1'.repeat(20), (2000n * 10n ** 18n).toString(), 0, ''],
      [svc.faucetAddress, 'd1'.repeat(20), (2000n * 10n ** 18n).toString(), 1, ''],
    ]);
    expect(recoverAddress(ethersSigningHash(fieldsOf(txs[0])), { r: `0x${txs[0].r}`, s: `0x${txs[0].s}`, v: txs[0].v }).toLowerCase()).toBe(`0x${svc.faucetAddress}`);
    // the faucet's key is the service's, kept across restarts
    expect((await f.start({ databaseUrl: svc.databaseUrl, env: { GAS_ENABLED: 'true' } })).faucetAddress).toBe(svc.faucetAddress);
    expect(await refusal(call(f.nc, TX.fill, { username: 'x', address: 'nope' }))).toMatchObject({ code: 'BAD_HEX', details: { field: 'address' } });
  });
});

describe('transaction - tx.done notices', () => {
  const result = (hash: string, size: number): TxResult => ({ status: 'Success', hash, txResult: null, data: { tag: 'Call', contents: ['x'.repeat(size)] } });
  const read = (notice: Uint8Array) => JSON.parse(new TextDecoder().decode(notice)) as TxDoneNotice;

  test("a block's results share notices of at most the given size; one too big alone is named in stored", () => {
    const results = [result('a1', 300), result('a2', 300), result('a3', 300), result('big', 5000), result('a4', 10)];
    const notices = doneNotices(results, 1000);
    expect(notices.every((n) => n.length <= 1000)).toBe(true);
    const contents = notices.map(read);
    expect(contents.flatMap((n) => n.results)).toEqual(results.filter((r) => r.hash !== 'big'));
    expect(contents.flatMap((n) => n.stored ?? [])).toEqual(['big']);
    expect(notices.length).toBeGreaterThanOrEqual(2);
    // a small block: one notice
    expect(doneNotices(results.slice(0, 2), 1_000_000).map(read)).toEqual([{ results: results.slice(0, 2) }]);
    expect(doneNotices([], 1000)).toEqual([]);
  });
});
