import { failedOutcome, foldXabi, structFieldsIn, xabiTypeText, type XabiType, type XabiVisitor } from '../src/index.js';

// counts the nodes of a type, structs through their definitions
const count: XabiVisitor<number> = {
  int: () => 1,
  decimal: () => 1,
  bool: () => 1,
  address: () => 1,
  account: () => 1,
  contract: () => 1,
  string: () => 1,
  bytes: () => 1,
  enum: () => 1,
  array: (_, entry) => 1 + entry,
  mapping: (_, k, v) => 1 + k + v,
  struct: (_, fields) => 1 + (fields()?.reduce((n, [, c]) => n + c, 0) ?? 0),
  other: () => 100,
};

test('the walker folds every tag, resolves structs through the types table, and stops at maxDepth', () => {
  const types = { S: { type: 'Struct', fields: { a: { type: 'Int', signed: false, bytes: 32, index: 0 }, kids: { type: 'Array', entry: { type: 'Struct', typedef: 'S' }, index: 1 } } } };
  const s: XabiType = { type: 'Struct', typedef: 'C.S' };
  expect(structFieldsIn(types, 'C.S')?.map(([n]) => n)).toEqual(['a', 'kids']);
  // a recursive struct: S, its members a and kids, kids' entry S at depth 2, whose members are past maxDepth
  expect(foldXabi(s, count, { structs: types, maxDepth: 2 })).toBe(1 + 1 + 1 + (1 + 100 + 100));
  expect(foldXabi({ type: 'Mapping', key: { type: 'String' }, value: { type: 'Array', entry: { type: 'Bool' }, length: 2 } }, count)).toBe(4);
  expect(foldXabi(s, count)).toBe(1);
  expect(() => foldXabi({ type: 'Nope' } as unknown as XabiType, { ...count, other: undefined })).toThrow(/no case/);
});

test('type text for messages', () => {
  expect(xabiTypeText({ type: 'Int', signed: true, bytes: 4 })).toBe('int32');
  expect(xabiTypeText({ type: 'Bytes', dynamic: false, bytes: 8 })).toBe('bytes8');
  expect(xabiTypeText({ type: 'Array', entry: { type: 'Struct', typedef: 'S' }, length: 2 })).toBe('S[2]');
  expect(xabiTypeText({ type: 'Mapping', key: { type: 'Address' }, value: { type: 'String' } })).toBe('mapping(address => string)');
});

test('a failed outcome', () => {
  expect(failedOutcome('no', 3n, 'REVERT')).toMatchObject({ ok: false, message: 'no', gasUsed: 3n, code: 'REVERT', events: [] });
  expect(failedOutcome('no')).not.toHaveProperty('code');
});
