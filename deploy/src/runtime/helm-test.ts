// `helm test`: each node's /ready, then one transaction on the first node read
// on every node (../smoke.ts). Tokens from each node's development identity
// provider (IDP_URLS), or given (TOKENS) with the operator's own provider.
import { checkNetwork, devToken } from '../smoke.js';

const list = (name: string) => (process.env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
try {
  const gateways = list('GATEWAY_URLS');
  if (gateways.length === 0) throw new Error('GATEWAY_URLS is required');
  const idps = list('IDP_URLS');
  const tokens = idps.length > 0 ? await Promise.all(idps.map((idp) => devToken(idp, 'helm-test'))) : list('TOKENS');
  if (tokens.length !== gateways.length) throw new Error(`one token per gateway: ${gateways.length} gateways, ${tokens.length} tokens`);
  const result = await checkNetwork(gateways, tokens);
  console.log(`ready: ${gateways.join(', ')}; contract ${result.address} created on the first node, read on every node (n = ${result.reads[0]})`);
} catch (err) {
  console.error(`helm test failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
