// Parameters addressed to embedded resources (`Order.qty=gt.5`,
// `Order.Customer.name=eq.x`, `Order.order=…`, `Order.limit=…`) matched with
// the embeds of the select they name. As PostgREST's `updateNode`: a name is
// an embed's alias or its relation name (`Order!buyer(*)` is `Order`), a
// name that is no embed of the select at that level is a 400 (PGRST108
// "'x' is not an embedded resource in this request"). Stricter where
// PostgREST takes the first of several: a name that fits several embeds of
// one level (`Order(*),o:Order(*)` and `Order.qty=…`) is a 400 asking for the
// alias, and two spellings giving one embed two orders or limits are a 400.
import type { EmbeddedParams, LevelParams, SelectItem } from '../ast.js';
import { badQuery, echo } from '../errors.js';

export type EmbedItem = Extract<SelectItem, { kind: 'embed' }>;

export type EmbedParams = LevelParams;

export const NO_PARAMS: EmbedParams = { where: [], order: null, limit: null, offset: 0 };

/** The key an embed takes in its parent's object: what null filters and related orders name it by. */
export const embedKey = (item: EmbedItem): string => item.alias ?? item.relation;

export function notEmbedded(name: string, details: Record<string, unknown>): never {
  throw badQuery(`${echo(name)} is not an embedded resource in this request: name an embed of select (its alias if it has one)`, {
    ...details,
    embed: name,
  });
}

/** The embed of `items` a parameter key names: by its key first, else by the relation of an aliased one. */
export function embedNamed(items: readonly SelectItem[], name: string, details: Record<string, unknown>): EmbedItem {
  const embeds = items.filter((i): i is EmbedItem => i.kind === 'embed');
  let found = embeds.filter((e) => embedKey(e) === name);
  if (found.length === 0) found = embeds.filter((e) => e.relation === name);
  if (found.length === 0) notEmbedded(name, details);
  if (found.length > 1) {
    throw badQuery(`${echo(name)} names more than one embedded resource of select: give them aliases and use those`, { ...details, embed: name });
  }
  return found[0];
}

export function attachEmbedded(select: readonly SelectItem[], embedded: readonly EmbeddedParams[]): Map<SelectItem, EmbedParams> {
  const out = new Map<SelectItem, EmbedParams>();
  for (const e of embedded) {
    let items = select;
    let item: EmbedItem | undefined;
    for (const name of e.path) {
      item = embedNamed(items, name, { path: e.path.join('.') });
      items = item.select;
    }
    const before = out.get(item!) ?? NO_PARAMS;
    const twice = (['order', 'limit'] as const).find((k) => before[k] !== null && e[k] !== null) ?? (before.offset && e.offset ? 'offset' : undefined);
    if (twice) throw badQuery(`${twice} is given twice for the embedded resource ${echo(e.path.join('.'))}`, { path: e.path.join('.') });
    out.set(item!, {
      where: [...before.where, ...e.where],
      order: e.order ?? before.order,
      limit: e.limit ?? before.limit,
      offset: e.offset || before.offset,
    });
  }
  return out;
}
