// API names of the indexed tables (docs/conventions.md "Cirrus"):
//
//   <org>-<app>-<Contract>   a contract created by the user's application `app`
//   <org>-<Contract>         a contract the user uploaded (the app is itself)
//   <Contract>               a contract of no organization (genesis contracts such as Certificate)
//
// That base name is a table *family*: its versions (a later upload whose
// variable changed type gets a new one) are `<family>@<n>`, and the family's
// name designates the newest. Derived tables: `history@<family>`,
// `<family>.<Event>`, `<family>-<variable>` (side tables), each also with
// `@<n>` after the family where it belongs to one version.
//
// A request may name a table by its bare contract name in place of the family
// (`Item`, `history@Item`, `Item.Moved`, `Item-balances`): it resolves when
// exactly one family has that contract name.

export interface Creator {
  name: string;
  creatorOrg: string | null;
  appName: string | null;
}

export function familyOf(c: Creator): string {
  if (!c.creatorOrg) return c.name;
  return c.appName && c.appName !== c.name ? `${c.creatorOrg}-${c.appName}-${c.name}` : `${c.creatorOrg}-${c.name}`;
}

export type TableKind = 'contract' | 'history' | 'event' | 'side';

/** The names a table answers to: the versioned one first, then the one it takes over from older versions. */
export function namesOf(kind: TableKind, family: string, version: number, member: string): string[] {
  const v = `${family}@${version}`;
  switch (kind) {
    case 'contract':
      return [v, family];
    case 'history':
      return [`history@${v}`, `history@${family}`];
    case 'side':
      return [`${v}-${member}`, `${family}-${member}`];
    case 'event':
      return [`${family}.${member}`];
  }
}

/** A contract name as Solidity writes it: the only thing a bare name can be. */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const VERSIONED = /^(.*)@([1-9][0-9]{0,8})$/;

/**
 * The readings of a requested name that use a bare contract name: the
 * contract name, and how to rebuild the full name from the family it
 * resolves to. A name that is not of such a form has none.
 */
export function bareReadings(name: string): Array<{ contract: string; rebuild: (family: string) => string }> {
  const out: Array<{ contract: string; rebuild: (family: string) => string }> = [];
  const withVersion = (base: string, wrap: (familyPart: string) => string): void => {
    const m = VERSIONED.exec(base);
    const [contract, suffix] = m ? [m[1], `@${m[2]}`] : [base, ''];
    if (IDENTIFIER.test(contract)) out.push({ contract, rebuild: (family) => wrap(family + suffix) });
  };
  if (name.startsWith('history@')) withVersion(name.slice('history@'.length), (f) => `history@${f}`);
  const dot = name.lastIndexOf('.');
  if (dot > 0) withVersion(name.slice(0, dot), (f) => `${f}${name.slice(dot)}`);
  const dash = name.lastIndexOf('-');
  if (dash > 0) withVersion(name.slice(0, dash), (f) => `${f}${name.slice(dash)}`);
  withVersion(name, (f) => f);
  return out;
}
