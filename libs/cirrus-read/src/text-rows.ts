// Statements run on a pg pool with the least the driver does per statement:
// a search's rows are written to JSON from PostgreSQL's own text
// (@platform/query runQueryJson), so nothing of pg's result shaping is used.
// pg's own query would, at every statement, copy its configuration object,
// ask for and parse the columns' description (`Describe`, answered by a
// RowDescription naming each column and its type), look a type parser up for
// each column and run it on every field. Measured under the gateway's
// benchmark (services/cirrus README, "Benchmarks"), that was a tenth of the
// gateway's CPU per search. Here a statement is Bind/Execute and a Sync
// (Parse first, once per connection, for a prepared statement; every time for
// an unnamed one), and its rows are the fields' text as pg's protocol parser
// read them.
//
// Statements that arrive while the connections are busy go together: the
// next connection that is free sends all of them in one write, each as
// Bind/Execute, and one Sync after the last. PostgreSQL then reads them in
// one go, runs them in one implicit (read-only) transaction, and writes their
// answers in one go: per statement, a write and a read fewer on each side,
// which on these machines is most of what a small search costs (a loopback
// write runs the receiver's side of TCP too). A statement the server refuses
// fails alone: PostgreSQL skips what follows it up to the Sync, and those
// statements are sent again. A statement still running after SLOW_MS no
// longer holds the others back: they may take another connection.
//
// A batch is a pg `Submittable` (the interface pg-cursor and pg-query-stream
// are written against): pg's client still owns the connection, reports the
// server's errors and the connection's, and holds which prepared statements
// the connection has (recorded here, as pg records them for one statement).
import pg from 'pg';
import { availableParallelism } from 'node:os';
import utils from 'pg/lib/utils.js';
import type { TextRowSource } from '@platform/query';

type Fields = Array<string | null>;
type Statement = { text: string; values: unknown[]; name?: string };

/** What pg's client keeps of a connection that a statement needs (pg/lib/connection.js). */
interface PgConnection {
  stream: { cork(): void; uncork(): void };
  /** prepared statements by name: their text, once the server parsed them */
  parsedStatements: Record<string, string>;
  /** prepared statements sent, not yet parsed */
  submittedNamedStatements: Record<string, string>;
  parse(query: { text: string; name?: string }): void;
  bind(config: { statement?: string; values: unknown[] }): void;
  execute(config: { portal: string }): void;
  sync(): void;
  sendCopyFail(message: string): void;
  on(event: 'parseComplete', listener: () => void): void;
  removeListener(event: 'parseComplete', listener: () => void): void;
}

/** Values as pg binds them: text of each (arrays as array literals, objects as JSON), null as null, buffers as they are. */
const { prepareValue } = utils;

/**
 * Batches sent at once, by default as many as the machine has cores (a
 * connection's statements run on one core of PostgreSQL); more only while one
 * of them runs longer than SLOW_MS.
 */
const CONCURRENT_BATCHES = availableParallelism();
const SLOW_MS = 20;
/** Statements in one batch at most: a batch's answers are one write of the server's (64 KiB of output at a time). */
const MAX_BATCH = 32;

interface Pending {
  statement: Statement;
  resolve(rows: Fields[]): void;
  reject(error: Error): void;
}

/** A statement's place in a batch: what it sent, what came back. */
interface Slot {
  pending: Pending;
  rows: Fields[];
  /** the prepared statement's name, while this batch parses it and the server has not answered ParseComplete */
  parses?: string;
}

class TextRowsBatch {
  // pg's client reads both after a Parse (to record a prepared statement): a batch records its own
  readonly text = '';
  readonly name = undefined;
  readonly done: Promise<void>;
  /** statements the server skipped after one it refused: to be sent again */
  unanswered: Pending[] = [];
  /** the connection failed: the pool must not keep it */
  broken: Error | undefined;
  private readonly slots: Slot[] = [];
  private current = 0;
  private settle!: () => void;
  private connection: PgConnection | undefined;
  /** the statements of this batch the server is to parse, in order (pg's client only records a Parse for a lone statement) */
  private readonly parsing: Slot[] = [];
  private readonly parsed = (): void => {
    const slot = this.parsing.shift();
    if (slot?.parses === undefined || !this.connection) return;
    this.connection.parsedStatements[slot.parses] = slot.pending.statement.text;
    delete this.connection.submittedNamedStatements[slot.parses];
    slot.parses = undefined;
  };

  constructor(batch: Pending[]) {
    this.slots = batch.map((pending) => ({ pending, rows: [] }));
    this.done = new Promise<void>((resolve) => (this.settle = resolve)).then(() => this.connection?.removeListener('parseComplete', this.parsed));
  }

  submit(connection: PgConnection): Error | null {
    this.connection = connection;
    const bound: Array<{ slot: Slot; values: unknown[]; parse: boolean }> = [];
    for (const slot of this.slots) {
      const { text, name, values } = slot.pending.statement;
      const previous = name === undefined ? undefined : (connection.parsedStatements[name] ?? connection.submittedNamedStatements[name]);
      if (previous !== undefined && previous !== text) {
        slot.pending.reject(new Error(`the prepared statement ${name} was made for another text`));
        continue;
      }
      // before anything is written: a value pg cannot bind fails its statement alone
      try {
        bound.push({ slot, values: values.map(prepareValue), parse: previous === undefined });
      } catch (err) {
        slot.pending.reject(err instanceof Error ? err : new Error(String(err)));
        continue;
      }
      if (previous === undefined && name !== undefined) {
        connection.submittedNamedStatements[name] = text;
        slot.parses = name;
      }
    }
    this.slots.length = 0;
    for (const { slot } of bound) this.slots.push(slot);
    if (this.slots.length === 0) {
      this.settle();
      // nothing to send: an empty query answers at once with ReadyForQuery, which ends this Submittable
      connection.stream.cork();
      connection.sync();
      connection.stream.uncork();
      return null;
    }
    for (const { slot, parse } of bound) if (parse) this.parsing.push(slot);
    connection.on('parseComplete', this.parsed);
    connection.stream.cork();
    try {
      for (const { slot, values, parse } of bound) {
        const { text, name } = slot.pending.statement;
        if (parse) connection.parse({ text, ...(name === undefined ? {} : { name }) });
        // text results (the format pg's bind asks for), no Describe: the plan knows its columns
        connection.bind({ ...(name === undefined ? {} : { statement: name }), values });
        connection.execute({ portal: '' });
      }
      connection.sync();
    } finally {
      connection.stream.uncork();
    }
    return null;
  }

  handleDataRow(message: { fields: Fields }): void {
    this.slots[this.current]?.rows.push(message.fields);
  }

  handleCommandComplete(): void {
    this.answered();
  }

  handleEmptyQuery(): void {
    this.answered();
  }

  handleError(error: Error): void {
    const slot = this.slots[this.current];
    // an ErrorResponse is the refusal of the statement being run; anything else is the connection's failure
    if (slot && isServerError(error)) {
      // the refused statement and those the server skipped: a Parse not answered by ParseComplete made nothing
      for (const s of this.slots.slice(this.current)) if (s.parses !== undefined) delete this.connection?.submittedNamedStatements[s.parses];
      slot.pending.reject(error);
      this.unanswered = this.slots.slice(this.current + 1).map((s) => s.pending);
    } else {
      this.broken = error;
      for (const s of this.slots.slice(this.current)) s.pending.reject(error);
    }
    this.current = this.slots.length;
    this.settle();
  }

  handleReadyForQuery(): void {
    // every statement answered (a refusal ends the batch in handleError, before this)
    this.settle();
  }

  handleCopyInResponse(connection: PgConnection): void {
    connection.sendCopyFail('a search copies nothing in');
  }

  handleRowDescription(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  private answered(): void {
    const slot = this.slots[this.current++];
    slot?.pending.resolve(slot.rows);
  }
}

/** PostgreSQL's ErrorResponse, as pg's protocol parser makes it (a DatabaseError with the server's severity). */
function isServerError(error: Error): boolean {
  return typeof (error as { severity?: unknown }).severity === 'string';
}

/** The statements of one pool, sent in batches (above). */
class TextRowsPipeline implements TextRowSource {
  private readonly waiting: Pending[] = [];
  /** batches sent and not yet answered that still hold the others back */
  private holding = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly concurrentBatches: number,
  ) {}

  textRows(statement: Statement): Promise<Fields[]> {
    return new Promise<Fields[]>((resolve, reject) => {
      this.waiting.push({ statement, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.waiting.length > 0 && this.holding < this.concurrentBatches) {
      this.holding++;
      void this.send(this.waiting.splice(0, MAX_BATCH));
    }
  }

  private async send(batch: Pending[]): Promise<void> {
    let holds = true;
    const release = () => {
      if (!holds) return;
      holds = false;
      this.holding--;
      this.pump();
    };
    const slow = setTimeout(release, SLOW_MS);
    try {
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (err) {
        for (const pending of batch) pending.reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      const submittable = new TextRowsBatch(batch);
      client.query(submittable as unknown as pg.Submittable);
      await submittable.done;
      client.release(submittable.broken ?? undefined);
      // skipped after a refusal: first in line again
      if (submittable.unanswered.length > 0) this.waiting.unshift(...submittable.unanswered);
    } finally {
      clearTimeout(slow);
      release();
    }
  }
}

const pipelines = new WeakMap<pg.Pool, TextRowsPipeline>();

/**
 * The TextRowSource of a pool: statements sent in batches (above), on
 * connections of the pool (destroyed after a failure, as pool.query does).
 * `concurrentBatches` (given at a pool's first call; default: the cores) is
 * how many batches may be sent before the first answers: the pool's size
 * sends every statement alone as soon as it comes (libs/cirrus-read/bench).
 */
export function textRowsOf(pool: pg.Pool, options: { concurrentBatches?: number } = {}): TextRowSource {
  let pipeline = pipelines.get(pool);
  if (!pipeline) pipelines.set(pool, (pipeline = new TextRowsPipeline(pool, options.concurrentBatches ?? CONCURRENT_BATCHES)));
  return pipeline;
}
