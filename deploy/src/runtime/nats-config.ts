// The NATS pod's init container: writes the server's configuration
// (NATS_CONFIG_FILE, mode 0600: it holds the route password) from the
// environment the chart gives it (../nats-config.ts).
import { writeFileSync } from 'node:fs';
import { natsConfig, natsConfigInputFromEnv } from '../nats-config.js';

const file = process.env.NATS_CONFIG_FILE ?? '/etc/nats-config/nats.conf';
try {
  const input = natsConfigInputFromEnv(process.env);
  writeFileSync(file, natsConfig(input), { mode: 0o600 });
  console.log(`wrote ${file}: server ${input.node}, ${input.members.length} members, ${input.routes.length} routes`);
} catch (err) {
  console.error(`nats-config: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
