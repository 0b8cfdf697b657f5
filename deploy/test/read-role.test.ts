// The init container's checks of the URLs it is given, before it connects:
// the gateway's URL names the role cirrus grants to, in the services'
// database, with a password; a refusal never repeats a URL (both hold passwords).
import { CIRRUS_READ_ROLE } from '@platform/launcher';
import { readRoleOf } from '../src/read-role.js';

const OWNER = 'postgres://platform:ownerSecret1@db.example:5432/platform';

test('the role and password of the gateway\'s URL, decoded', () => {
  expect(readRoleOf(OWNER, `postgres://${CIRRUS_READ_ROLE}:abc%2Ddef@db.example:5432/platform`)).toEqual({ role: CIRRUS_READ_ROLE, password: 'abc-def' });
  // another address of the same database (a pooler, a replica's name) is the operator's choice
  expect(readRoleOf(OWNER, `postgresql://${CIRRUS_READ_ROLE}:p4ss@pooler.example/platform`).password).toBe('p4ss');
});

test.each([
  ['another role', `postgres://reader:readSecret9@db.example:5432/platform`, /must name the role cirrus_reader/],
  ['another database', `postgres://${CIRRUS_READ_ROLE}:readSecret9@db.example:5432/other`, /must name the database of DATABASE_URL/],
  ['no password', `postgres://${CIRRUS_READ_ROLE}@db.example:5432/platform`, /has no password/],
  ['not a URL', 'readSecret9', /CIRRUS_READ_DATABASE_URL is not a URL/],
])('%s is refused, without the URLs in the message', (_what, url, message) => {
  let error: Error | null = null;
  try {
    readRoleOf(OWNER, url);
  } catch (err) {
    error = err as Error;
  }
  expect(error?.message).toMatch(message);
  expect(error?.message).not.toMatch(/readSecret9|ownerSecret1/);
});
