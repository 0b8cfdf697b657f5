// What the cirrus suites share: real NATS (JetStream) and PostgreSQL, cirrus
// started on them, and genuine ExecResults made by running SolidVM
// (createContract/callContract on a MemoryWorldState, so stateChanges,
// events and contractsCreated with their xabi are what the block service
// would publish), published to the EXEC stream.
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import { CIRRUS, STREAMS, call, connectBus, ensureStream, type NatsConnection, type SearchResponse } from '@platform/bus';
import { PlatformError, createLogger, loadConfig, type ExecResult, type ExecutionContext, type Receipt, type VmKind } from '@platform/common';
import { startTestInfra, type TestInfra } from '@platform/launcher';
import { MemoryWorldState, createSolidVm, type ExecOutcome } from '@platform/solidvm';
import { startCirrus, type CirrusOptions, type RunningCirrus } from '../src/index.js';

/** one SolidVM for the tests, as the block service keeps one */
const vm = createSolidVm();

export const SENDER = '11'.repeat(20);
export const OTHER = '22'.repeat(20);
export const logger = createLogger('cirrus', 'silent');
export const blockHash = (n: number): string => `b${n}`.padEnd(64, '0');
const hashOf = (n: number): string => n.toString(16).padStart(64, '0');

/** A chain run by SolidVM in memory: receipts of creations and calls, as the block service makes them. */
export class Chain {
  readonly state = new MemoryWorldState();
  private txCounter = 0;
  private readonly nonces = new Map<string, bigint>();

  constructor(
    private readonly identity: { organization: string } | null = null,
    readonly chainId = '',
  ) {}

  /** the creator's next nonce, taken */
  protected nonce(from: string): bigint {
    const nonce = this.nonces.get(from) ?? 0n;
    this.nonces.set(from, nonce + 1n);
    return nonce;
  }

  protected ctx(block: number, from: string): ExecutionContext {
    return {
      chainId: this.chainId,
      block: { number: block, timestamp: 1_700_000_000 + block * 10, coinbase: '' },
      tx: { hash: hashOf(++this.txCounter), origin: from, gasPrice: 0n, gasLimit: 10_000_000n, value: 0n },
      identity: this.identity ? { username: 'u', organization: this.identity.organization, organizationalUnit: '', certificate: '' } : null,
      protocol: { stepLimit: 1_000_000, gasTableVersion: 1 },
      gasEnabled: false,
    };
  }

  /** a receipt of either VM's outcome (the fields they share) */
  protected receipt(c: ExecutionContext, from: string, o: Omit<ExecOutcome, 'code'>, kind: VmKind = 'SolidVM'): Receipt {
    if (!o.ok) throw new Error(o.message);
    return {
      transactionHash: c.tx.hash,
      from,
      status: 'Success',
      message: o.message,
      kind,
      response: o.response,
      returnValues: o.returnValues,
      contractsCreated: o.contractsCreated,
      contractsDeleted: o.contractsDeleted,
      gasUsed: o.gasUsed.toString(),
      etherUsed: '0',
      stateChanges: o.stateChanges,
      events: o.events,
      time: 1,
      trace: '',
    };
  }

  create(block: number, from: string, src: string, contractName: string, args: unknown): { r: Receipt; address: string } {
    const c = this.ctx(block, from);
    const o = vm.createContract(this.state, c, { creator: from, src, contractName, args, nonce: this.nonce(from) });
    return { r: this.receipt(c, from, o), address: o.address! };
  }

  invoke(block: number, from: string, address: string, method: string, args: unknown): Receipt {
    const c = this.ctx(block, from);
    return this.receipt(c, from, vm.callContract(this.state, c, { caller: from, address, method, args }));
  }
}

export function exec(number: number, receipts: Receipt[], chainId = ''): ExecResult {
  return { chainId, block: { number, hash: blockHash(number), timestamp: 1_700_000_000 + number * 10, parentHash: blockHash(number - 1), stateRoot: '00'.repeat(32) }, receipts };
}

/** A test's infrastructure and a running cirrus, with helpers to feed and query it. */
export class Harness {
  infra!: TestInfra;
  db!: pg.Pool;
  nc!: NatsConnection;
  js!: JetStreamClient;
  jsm!: JetStreamManager;
  cirrus: RunningCirrus | undefined;
  databaseUrl!: string;
  published = 0;

  /** `beforeCirrus`: what must exist before cirrus starts (a read role it grants its schema to) */
  async start(database: string, options: Partial<CirrusOptions> = {}, beforeCirrus?: () => Promise<void>): Promise<void> {
    this.infra = await startTestInfra({ nats: true, postgres: true });
    this.databaseUrl = await this.infra.postgres!.createDatabase(database);
    this.db = new pg.Pool({ connectionString: this.databaseUrl });
    // an idle connection may hear the server stop at teardown: not a failure of the suite
    this.db.on('error', () => {});
    this.nc = await connectBus({ url: this.infra.nats!.url, name: 'cirrus-test', logger });
    this.jsm = await jetstreamManager(this.nc);
    await ensureStream(this.jsm, STREAMS.exec);
    this.js = jetstream(this.nc);
    await beforeCirrus?.();
    await this.startCirrus(options);
  }

  async startCirrus(options: Partial<CirrusOptions> = {}): Promise<void> {
    this.cirrus = await startCirrus({ config: loadConfig({ LOG_LEVEL: 'silent' }), logger, natsUrl: this.infra.nats!.url, databaseUrl: this.databaseUrl, ...options });
  }

  async stopCirrus(): Promise<void> {
    await this.cirrus?.stop();
    this.cirrus = undefined;
  }

  async stop(): Promise<void> {
    await this.cirrus?.stop();
    await this.nc?.drain();
    await this.db?.end();
    await this.infra?.stop();
  }

  async publish(e: ExecResult): Promise<void> {
    const chain = e.chainId || 'main';
    await this.js.publish(`exec.${chain}`, JSON.stringify(e), { msgID: `${chain}:${e.block.number}` });
    this.published++;
  }

  async applied(): Promise<number> {
    const { rows } = await this.db.query<{ last_seq: string }>("SELECT last_seq FROM cirrus.progress WHERE consumer = 'cirrus'").catch(() => ({ rows: [] as { last_seq: string }[] }));
    return rows[0] ? Number(rows[0].last_seq) : 0;
  }

  /** Waits until every published message is applied. */
  async settled(): Promise<void> {
    const deadline = Date.now() + 15_000;
    while ((await this.applied()) < this.published) {
      if (Date.now() > deadline) throw new Error(`indexer stuck at ${await this.applied()} of ${this.published}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    // the catalogue's change notice reaches the endpoint's table cache a moment after the commit
    await new Promise((r) => setTimeout(r, 30));
  }

  async search(table: string, query: string, prefer?: string, username = 'alice'): Promise<SearchResponse & { body: unknown }> {
    const res = await call(this.nc, CIRRUS.search, { table, query, username, ...(prefer ? { prefer } : {}) });
    return { ...res, body: JSON.parse(res.rows) };
  }

  /** The PlatformError a search fails with. */
  async failure(table: string, query: string, username?: string): Promise<PlatformError> {
    try {
      await this.search(table, query, undefined, username);
    } catch (err) {
      if (err instanceof PlatformError) return err;
      throw err;
    }
    throw new Error(`expected ${table}?${query} to fail`);
  }

  async sqlTable(api: string): Promise<string> {
    const { rows } = await this.db.query<{ sql_name: string }>('SELECT sql_name FROM cirrus.names WHERE api_name = $1', [api]);
    return `cirrus.${rows[0].sql_name}`;
  }

  /** Every API name with its table's columns and rows: the whole read model, comparable. */
  async dump(): Promise<Record<string, unknown>> {
    const { rows: names } = await this.db.query<{ api_name: string; sql_name: string; columns: unknown }>(
      'SELECT n.api_name, n.sql_name, t.columns FROM cirrus.names n JOIN cirrus.tables t USING (sql_name) ORDER BY n.api_name',
    );
    const out: Record<string, unknown> = {};
    for (const t of names) out[t.api_name] = { sql: t.sql_name, columns: t.columns, rows: (await this.db.query(`SELECT * FROM cirrus.${t.sql_name} ORDER BY 1, 2, 3`)).rows };
    return out;
  }
}
