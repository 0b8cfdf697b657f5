// `npm run token -- <username> [--org <organization>]` or `npm run token -- --client-credentials`:
// an access token from the development identity provider that `npm start`
// runs. Prints only the token, so that `TOKEN=$(npm run -s token -- alice)` works.
import { loadConfig } from '@platform/common';

// the development provider's clients (services/idp/README.md)
const CLI_CLIENT_ID = 'platform-cli';
const SERVICE_CLIENT = 'platform-service:platform-service-secret';
const USAGE = 'usage: npm run token -- <username> [--org <organization>] | --client-credentials';

function fail(message: string, status = 1): never {
  console.error(message);
  process.exit(status);
}

function parseArgs(argv: string[]): { username: string | null; org: string | null; clientCredentials: boolean } {
  let username: string | null = null;
  let org: string | null = null;
  let clientCredentials = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--client-credentials') clientCredentials = true;
    else if (arg === '--org') org = argv[++i] ?? fail(USAGE, 2);
    else if (arg.startsWith('--org=')) org = arg.slice('--org='.length);
    else if (arg.startsWith('-') || username !== null) fail(USAGE, 2);
    else username = arg;
  }
  if (clientCredentials ? username !== null || org !== null : !username) fail(USAGE, 2);
  return { username, org, clientCredentials };
}

const args = parseArgs(process.argv.slice(2));
let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  fail(`error: ${(err as Error).message}`);
}
if (config.oauthDiscoveryUrl) fail('error: OAUTH_DISCOVERY_URL is set, so no development identity provider runs; get a token from your identity provider');

const issuer = `http://127.0.0.1:${config.idpPort}`;
const body = new URLSearchParams(
  args.clientCredentials
    ? { grant_type: 'client_credentials' }
    : { grant_type: 'password', client_id: CLI_CLIENT_ID, username: args.username!, password: 'development', ...(args.org ? { organization: args.org } : {}) },
);
const headers: Record<string, string> = args.clientCredentials ? { authorization: `Basic ${Buffer.from(SERVICE_CLIENT).toString('base64')}` } : {};

let response: Response;
try {
  response = await fetch(`${issuer}/token`, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
} catch {
  fail(`error: no development identity provider answers at ${issuer}; run \`npm start\` first`);
}
const result = (await response.json().catch(() => ({}))) as { access_token?: string; error?: string; error_description?: string };
if (!response.ok || typeof result.access_token !== 'string') {
  const why = result.error ? `${result.error}${result.error_description ? `: ${result.error_description}` : ''}` : `HTTP ${response.status}`;
  fail(`error: the identity provider at ${issuer} refused (${why}); is it the development provider of \`npm start\`?`);
}
console.log(result.access_token);
