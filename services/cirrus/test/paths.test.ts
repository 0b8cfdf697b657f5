// Storage paths of SolidVM diffs and the updates they make to a mapping
// entry's stored value; table names and their bare readings. Pure functions.
import { jsonText, parseJson } from '@platform/query';
import { bareReadings, familyOf, namesOf } from '../src/naming.js';
import { isDefault, keyValue, parsePath, updateValue } from '../src/paths.js';
import type { Shape } from '../src/shapes.js';

describe('parsePath', () => {
  test.each([
    ['.qty', { name: 'qty', segments: [] }],
    ['.balances<1a2b>', { name: 'balances', segments: [{ k: 'key', text: '1a2b' }] }],
    ['.flags<"a>b<\\"c">', { name: 'flags', segments: [{ k: 'key', text: '"a>b<\\"c"' }] }],
    ['.m<1><2>[3].x.length', { name: 'm', segments: [{ k: 'key', text: '1' }, { k: 'key', text: '2' }, { k: 'index', i: 3 }, { k: 'field', name: 'x' }, { k: 'field', name: 'length' }] }],
  ])('%s', (path, parsed) => expect(parsePath(path)).toEqual(parsed));

  test.each(['qty', '.', '.m<1', '.m[x]', '.m[-1]', '.m<1>!', '0'.repeat(64)])('%s is not a path of a variable', (path) => expect(parsePath(path)).toBeNull());
});

describe('keyValue', () => {
  test('string keys unquoted, booleans as booleans, bytes without 0x, others as they are', () => {
    expect(keyValue({ k: 'text' }, '"a,b"')).toBe('a,b');
    expect(keyValue({ k: 'bool' }, 'true')).toBe(true);
    expect(keyValue({ k: 'text' }, '0xabcd')).toBe('abcd');
    expect(keyValue({ k: 'num' }, '12')).toBe('12');
  });
});

describe('updateValue', () => {
  const P: Shape = { k: 'struct', fields: [['x', { k: 'num' }], ['s', { k: 'text' }], ['b', { k: 'bool' }]] };
  const text = (v: Parameters<typeof jsonText>[0]) => jsonText(v);
  const seg = (path: string) => parsePath(path)!.segments;

  test('struct fields are set one by one from their default', () => {
    const v = updateValue(parseJson('{"x":0,"s":"","b":false}'), P, seg('.m<1>.x'), '123456789012345678901234567890', 1);
    expect(text(v)).toBe('{"x":123456789012345678901234567890,"s":"","b":false}');
    expect(isDefault(P, updateValue(v, P, seg('.m<1>.x'), null, 1))).toBe(true);
  });

  test('a value read back from jsonb (keys in its own order) is recognised as the default', () => {
    expect(isDefault(P, parseJson('{"b":false,"s":"","x":0}'))).toBe(true);
  });

  test('arrays grow by index and shrink by length, whatever order the slots come in', () => {
    const A: Shape = { k: 'array', elem: { k: 'num' }, length: null };
    let v = updateValue([], A, seg('.m<1>[1]'), '6', 1);
    v = updateValue(v, A, seg('.m<1>[0]'), '5', 1);
    v = updateValue(v, A, seg('.m<1>.length'), '2', 1);
    expect(text(v)).toBe('[5,6]');
    // a pop: the length shrinks and the last slot is cleared, in either order
    expect(text(updateValue(updateValue(v, A, seg('.m<1>.length'), '1', 1), A, seg('.m<1>[1]'), null, 1))).toBe('[5]');
    expect(text(updateValue(updateValue(v, A, seg('.m<1>[1]'), null, 1), A, seg('.m<1>.length'), '1', 1))).toBe('[5]');
  });

  test('nested mappings keep only entries that are not the default', () => {
    const M: Shape = { k: 'mapping', key: { k: 'num' }, value: { k: 'bool' } };
    const v = updateValue({}, M, seg('.m<a><3>'), 'true', 1);
    expect(text(v)).toBe('{"3":true}');
    expect(text(updateValue(v, M, seg('.m<a><3>'), null, 1))).toBe('{}');
  });

  test('a path that does not fit the shape changes nothing', () => {
    expect(text(updateValue({ x: 'kept' }, { k: 'json' }, seg('.m<1>.x'), '1', 1))).toBe('{"x":"kept"}');
  });
});

describe('naming', () => {
  test('families from the creator', () => {
    expect(familyOf({ name: 'Item', creatorOrg: null, appName: null })).toBe('Item');
    expect(familyOf({ name: 'Item', creatorOrg: 'Acme', appName: null })).toBe('Acme-Item');
    expect(familyOf({ name: 'Item', creatorOrg: 'Acme', appName: 'Item' })).toBe('Acme-Item');
    expect(familyOf({ name: 'Item', creatorOrg: 'Acme', appName: 'Market' })).toBe('Acme-Market-Item');
  });

  test('names of each kind of table', () => {
    expect(namesOf('contract', 'Acme-Item', 2, '')).toEqual(['Acme-Item@2', 'Acme-Item']);
    expect(namesOf('history', 'Acme-Item', 1, '')).toEqual(['history@Acme-Item@1', 'history@Acme-Item']);
    expect(namesOf('side', 'Acme-Item', 1, 'owners')).toEqual(['Acme-Item@1-owners', 'Acme-Item-owners']);
    expect(namesOf('event', 'Acme-Item', 0, 'Moved')).toEqual(['Acme-Item.Moved']);
  });

  test('bare readings: a contract name where the family goes, rebuilt with the family', () => {
    const rebuilt = (name: string) => bareReadings(name).map((r) => [r.contract, r.rebuild('Acme-Item')]);
    expect(rebuilt('Item')).toEqual([['Item', 'Acme-Item']]);
    expect(rebuilt('Item@2')).toEqual([['Item', 'Acme-Item@2']]);
    expect(rebuilt('history@Item')).toEqual([['Item', 'history@Acme-Item']]);
    expect(rebuilt('Item.Moved')).toEqual([['Item', 'Acme-Item.Moved']]);
    expect(rebuilt('Item@1-owners')).toEqual([['Item', 'Acme-Item@1-owners']]);
    // an organisation's name is not a contract name: nothing to resolve
    expect(rebuilt('Acme Inc-Item')).toEqual([]);
  });
});
