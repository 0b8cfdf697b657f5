// Statements run on a pg pool with the least the driver does per statement:
// a search's rows are written to JSON from PostgreSQL's own text
// (@platform/query runQueryJson), so nothing of pg's result shaping is used.
// pg's own query would, at every statement, copy its configuration object,
// ask for and parse the columns' description (`Describe`, answered by a
// RowDescription naming each column and its type), look a type parser up for
// each column and run it on every field. Measured under the gateway's
// benchmark (services/cirrus README, "Benchmarks"), that was a tenth of the
// gateway's CPU per search. Here a statement is one round trip of
// Bind/Execute/Sync (Parse first, once per connection, for a prepared
// statement; every time for an unnamed one), and its rows are the fields'
// text as pg's protocol parser read them.
//
// It is a pg `Submittable` (the interface pg-cursor and pg-query-stream are
// written against): pg's client still owns the connection, queues the
// statement, reports the server's errors and the connection's, and records
// which prepared statements the connection has.
import pg from 'pg';
import utils from 'pg/lib/utils.js';
import type { TextRowSource } from '@platform/query';

type Fields = Array<string | null>;

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
}

/** Values as pg binds them: text of each (arrays as array literals, objects as JSON), null as null, buffers as they are. */
const { prepareValue } = utils;

class TextRowsStatement {
  readonly rows: Fields[] = [];
  readonly done: Promise<Fields[]>;
  private settle!: (error: Error | undefined) => void;
  private failure: Error | undefined;

  constructor(
    // pg's client reads both: `name` to forget a statement the server refused, `text` to record one it parsed
    readonly text: string,
    readonly name: string | undefined,
    private readonly values: unknown[],
  ) {
    this.done = new Promise<Fields[]>((resolve, reject) => {
      this.settle = (error) => (error ? reject(error) : resolve(this.rows));
    });
  }

  submit(connection: PgConnection): Error | null {
    const previous = this.name === undefined ? undefined : (connection.parsedStatements[this.name] ?? connection.submittedNamedStatements[this.name]);
    if (previous !== undefined && previous !== this.text) return new Error(`the prepared statement ${this.name} was made for another text`);
    // before anything is written: a value pg cannot bind fails the statement alone
    let values: unknown[];
    try {
      values = this.values.map(prepareValue);
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
    connection.stream.cork();
    try {
      if (previous === undefined) {
        connection.parse({ text: this.text, ...(this.name === undefined ? {} : { name: this.name }) });
        if (this.name !== undefined) connection.submittedNamedStatements[this.name] = this.text;
      }
      // text results (the format pg's bind asks for), no Describe: the plan knows its columns
      connection.bind({ ...(this.name === undefined ? {} : { statement: this.name }), values });
      connection.execute({ portal: '' });
      connection.sync();
    } finally {
      connection.stream.uncork();
    }
    return null;
  }

  handleDataRow(message: { fields: Fields }): void {
    this.rows.push(message.fields);
  }

  handleError(error: Error): void {
    // pg's client then waits for the server's ReadyForQuery before the connection's next statement
    this.failure ??= error;
    this.settle(this.failure);
  }

  handleReadyForQuery(): void {
    this.settle(this.failure);
  }

  handleCopyInResponse(connection: PgConnection): void {
    connection.sendCopyFail('a search copies nothing in');
  }

  handleRowDescription(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

/** A TextRowSource over a pool: each statement on a connection of its own, given back after its answer (destroyed after a failure, as pool.query does). */
export function textRowsOf(pool: pg.Pool): TextRowSource {
  return {
    async textRows({ text, values, name }) {
      const client = await pool.connect();
      const statement = new TextRowsStatement(text, name, values);
      try {
        client.query(statement as unknown as pg.Submittable);
        const rows = await statement.done;
        client.release();
        return rows;
      } catch (err) {
        client.release(err instanceof Error ? err : true);
        throw err;
      }
    },
  };
}
