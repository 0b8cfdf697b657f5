// The node pod's init container `read-role`: the gateway's read-only role,
// made or brought up to date before the services start (../read-role.ts).
import { ensureReadRole } from '../read-role.js';

try {
  const need = (name: string) => process.env[name] || (() => { throw new Error(`${name} is required`); })();
  const role = await ensureReadRole(need('DATABASE_URL'), need('CIRRUS_READ_DATABASE_URL'), {
    waitMs: 90_000,
    onWait: (reason) => console.log(`read-role: waiting for the database (${reason})`),
  });
  console.log(`read-role: ${role} is a read-only login role of the node's database`);
} catch (err) {
  console.error(`read-role: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
