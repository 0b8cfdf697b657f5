// SQL fragments: text with `?` placeholders (knex's positional bindings) and
// the values bound to them. The tagged template `sql` only interpolates other
// fragments, so request text cannot be spliced into SQL by accident: values go
// through `param` (bound), identifiers through `ident` (catalogue names only).

export interface Fragment {
  readonly text: string;
  readonly values: readonly unknown[];
}

/** Casts the planner may write after a placeholder: a closed list. */
export type Cast = 'text' | 'numeric' | 'boolean' | 'jsonb' | 'int' | 'text[]' | 'numeric[]' | 'boolean[]' | 'jsonb[]';

export function sql(strings: TemplateStringsArray, ...parts: readonly Fragment[]): Fragment {
  let text = strings[0];
  const values: unknown[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    text += part.text + strings[i + 1];
    for (const v of part.values) values.push(v);
  }
  return { text, values };
}

export function param(value: unknown, cast?: Cast): Fragment {
  return { text: cast ? `?::${cast}` : '?', values: [value] };
}

/**
 * A quoted identifier. Catalogue names are trusted but still quoted
 * properly; a `?` inside one is escaped so knex does not take it for a
 * placeholder.
 */
/** Quoted identifiers by name: catalogue names recur in every query. */
const identifiers = new Map<string, Fragment>();

export function ident(name: string): Fragment {
  let quoted = identifiers.get(name);
  if (quoted === undefined) {
    if (name === '' || name.includes('\0')) throw new Error(`invalid SQL identifier in the catalogue: ${JSON.stringify(name)}`);
    quoted = { text: `"${name.replace(/"/g, '""').replace(/\?/g, '\\?')}"`, values: [] };
    if (identifiers.size > 100_000) identifiers.clear();
    identifiers.set(name, quoted);
  }
  return quoted;
}
/** A name the planner made up itself (table aliases such as `t0`), never request text. */
export function alias(name: `${'t' | 'e'}${number}`): Fragment {
  return { text: name, values: [] };
}

export function join(parts: readonly Fragment[], separator: string): Fragment {
  let text = '';
  const values: unknown[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) text += separator;
    text += parts[i].text;
    for (const v of parts[i].values) values.push(v);
  }
  return { text, values };
}


/**
 * The statement in PostgreSQL's own placeholder form (`$1`, `$2`...), for a
 * pg client used without knex. The planner writes no string literal holding
 * `?`, so every bare `?` is a placeholder; `\?` is a `?` inside an identifier.
 */
export function toNative(text: string): string {
  let n = 0;
  return text.replace(/\\\?|\?/g, (m) => (m === '?' ? `$${++n}` : '?'));
}
