// The read role of the gateway's `/cirrus/search` in Kubernetes
// (docs/architecture.md "State and storage"): the node pod's init container
// `read-role` makes or brings up to date, at every start of the pod, the role
// of the gateway's CIRRUS_READ_DATABASE_URL with the launcher's own
// createReadRole, connected as DATABASE_URL's user; cirrus then grants it its
// schema (CIRRUS_READ_ROLE). So the role is the launcher's, statement for
// statement, with the chart's bundled PostgreSQL and with an operator's.
import { CIRRUS_READ_ROLE, createReadRole } from '@platform/launcher';
import { isUnavailable } from '@platform/pg';

/**
 * The role and password of the gateway's URL, which must name the role
 * `cirrus_reader` (the role cirrus is told to grant) in the database of
 * DATABASE_URL. Messages name the part that is wrong, never a URL: both
 * hold passwords.
 */
export function readRoleOf(databaseUrl: string, readUrl: string): { role: string; password: string } {
  const parse = (text: string, name: string) => {
    try {
      return new URL(text);
    } catch {
      throw new Error(`${name} is not a URL`);
    }
  };
  const database = parse(databaseUrl, 'DATABASE_URL');
  const read = parse(readUrl, 'CIRRUS_READ_DATABASE_URL');
  if (decodeURIComponent(read.username) !== CIRRUS_READ_ROLE) throw new Error(`CIRRUS_READ_DATABASE_URL must name the role ${CIRRUS_READ_ROLE}, the role cirrus grants its schema to`);
  if (read.pathname !== database.pathname) throw new Error('CIRRUS_READ_DATABASE_URL must name the database of DATABASE_URL: cirrus grants its schema there');
  const password = decodeURIComponent(read.password);
  if (password === '') throw new Error('CIRRUS_READ_DATABASE_URL has no password');
  return { role: CIRRUS_READ_ROLE, password };
}

/**
 * Makes the read role, waiting up to `waitMs` for the database to accept
 * connections: in a cluster the node's pod may start before its PostgreSQL.
 */
export async function ensureReadRole(databaseUrl: string, readUrl: string, options: { waitMs: number; onWait?: (reason: string) => void }): Promise<string> {
  const { role, password } = readRoleOf(databaseUrl, readUrl);
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    try {
      await createReadRole(databaseUrl, role, password);
      return role;
    } catch (err) {
      if (!isUnavailable(err) || Date.now() > deadline) throw err;
      options.onWait?.(err instanceof Error ? err.message : String(err));
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
}
