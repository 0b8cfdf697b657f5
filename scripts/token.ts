// `npm run token -- <username> [--org <organization>] [--unit <unit>] [--role <role>]…`
// or `npm run token -- --client-credentials`:
// an access token from the development identity provider that `npm start`
// runs. Prints only the token, so that `TOKEN=$(npm run -s token -- alice)` works.
import { loadConfig } from '@platform/common';

// the development provider's clients (services/idp/README.md)
const CLI_CLIENT_ID = 'platform-cli';
const SERVICE_CLIENT = 'platform-service:platform-service-secret';
const USAGE = 'usage: npm run token -- <username> [--org <organization>] [--unit <organizational unit>] [--role <role>]… | --client-credentials';

function fail(message: string, status = 1): never {
  console.error(message);
  process.exit(status);
}

interface Args {
  username: string | null;
  org: string | null;
  unit: string | null;
  roles: string[];
  clientCredentials: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { username: null, org: null, unit: null, roles: [], clientCredentials: false };
  // `--name value` or `--name=value`
  const value = (arg: string, name: string, i: number): [string, number] | null => {
    if (arg === `--${name}`) return [argv[i + 1] ?? fail(USAGE, 2), i + 1];
    if (arg.startsWith(`--${name}=`)) return [arg.slice(name.length + 3), i];
    return null;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    let v: [string, number] | null;
    if (arg === '--client-credentials') args.clientCredentials = true;
    else if ((v = value(arg, 'org', i))) [args.org, i] = v;
    else if ((v = value(arg, 'unit', i))) [args.unit, i] = v;
    else if ((v = value(arg, 'role', i))) {
      args.roles.push(v[0]);
      i = v[1];
    } else if (arg.startsWith('-') || args.username !== null) fail(USAGE, 2);
    else args.username = arg;
  }
  const userOnly = args.username !== null || args.org !== null || args.unit !== null || args.roles.length > 0;
  if (args.clientCredentials ? userOnly : !args.username) fail(USAGE, 2);
  return args;
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
    : {
        grant_type: 'password',
        client_id: CLI_CLIENT_ID,
        username: args.username!,
        password: 'development',
        ...(args.org ? { organization: args.org } : {}),
        ...(args.unit ? { organizationalUnit: args.unit } : {}),
        ...(args.roles.length > 0 ? { roles: args.roles.join(' ') } : {}),
      },
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
