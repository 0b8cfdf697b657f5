// A position in one parameter's text, for the hand-written recursive-descent
// parsers of this folder. A failure carries the column and what was expected,
// in the spirit of PostgREST's parser messages ("failed to parse order (id.ac)
// ... expecting asc, desc, nullsfirst or nullslast").
import { badQuery, echo } from '../errors.js';

export class ParseFailure extends Error {
  constructor(
    readonly column: number,
    readonly expected: string,
  ) {
    super(`expected ${expected} at column ${column}`);
  }
}

export class Cursor {
  pos = 0;
  constructor(readonly text: string) {}

  get done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(offset = 0): string {
    return this.text.charAt(this.pos + offset);
  }

  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }

  /** Consumes `s` when it comes next. */
  eat(s: string): boolean {
    if (!this.startsWith(s)) return false;
    this.pos += s.length;
    return true;
  }

  expect(s: string, what = `'${s}'`): void {
    if (!this.eat(s)) this.fail(what);
  }

  /** PostgREST's `ws`: spaces and tabs only. */
  skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  fail(expected: string): never {
    throw new ParseFailure(this.pos + 1, expected);
  }

  /** Runs `parse`, restoring the position when it fails (Parsec's `try`). */
  attempt<T>(parse: () => T): T | undefined {
    const start = this.pos;
    try {
      return parse();
    } catch (err) {
      if (!(err instanceof ParseFailure)) throw err;
      this.pos = start;
      return undefined;
    }
  }
}

/**
 * Runs a parser over a whole parameter value; a failure becomes a 400 naming
 * the parameter, its value and the column, e.g.
 * `failed to parse order ('id.ac') at column 4: expected asc, desc, nullsfirst or nullslast`.
 */
export function parseParam<T>(what: string, text: string, parse: (c: Cursor) => T): T {
  const cursor = new Cursor(text);
  try {
    const result = parse(cursor);
    if (!cursor.done) cursor.fail('end of input');
    return result;
  } catch (err) {
    if (!(err instanceof ParseFailure)) throw err;
    throw badQuery(`failed to parse ${what} (${echo(text)}) at column ${err.column}: expected ${err.expected}`, {
      parameter: what,
      value: text,
      column: err.column,
    });
  }
}
