// What `helm test` and the rendered-wiring test check on a running network:
// each node is ready, a transaction made on one node (a contract's creation)
// is final there, and its state reads the same from every node's read model.
// Only the REST interface is used, as a client outside the nodes would.

export interface Answer {
  status: number;
  body: any;
}

export async function call(gateway: string, method: string, path: string, token?: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${gateway}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text for the message
  }
  return { status: response.status, body: parsed };
}

/** A token from a node's development identity provider (the password grant of its `platform-cli` client). */
export async function devToken(idpUrl: string, username: string): Promise<string> {
  const body = new URLSearchParams({ grant_type: 'password', client_id: 'platform-cli', username, password: 'development' });
  const response = await fetch(`${idpUrl}/token`, { method: 'POST', body, signal: AbortSignal.timeout(30_000) });
  const answer = (await response.json()) as { access_token?: string; error?: string };
  if (!response.ok || !answer.access_token) throw new Error(`${idpUrl}/token refused: ${response.status} ${answer.error ?? ''}`);
  return answer.access_token;
}

async function until<T>(what: string, timeoutMs: number, attempt: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const value = await attempt();
      if (value !== null) return value;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s${last ? ` (${last})` : ''}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function waitReady(gateway: string, timeoutMs: number): Promise<void> {
  await until(`${gateway}/ready`, timeoutMs, async () => ((await call(gateway, 'GET', '/ready')).status === 200 ? true : null));
}

const COUNTER = 'contract DeployCheck { uint public n; constructor(uint start) { n = start; } }';

/** Makes the user's key (an existing one is fine), then creates a contract holding `start`, waiting until it is final; its address. */
export async function createContract(gateway: string, token: string, start: number): Promise<string> {
  const key = await call(gateway, 'POST', '/platform/v2.3/key', token);
  if (key.status !== 200 && key.status !== 409) throw new Error(`POST /platform/v2.3/key on ${gateway}: ${key.status} ${JSON.stringify(key.body)}`);
  const tx = { type: 'CONTRACT', payload: { contract: 'DeployCheck', src: COUNTER, args: { start }, metadata: { VM: 'SolidVM' } } };
  const sent = await call(gateway, 'POST', '/platform/v2.3/transaction?resolve=true', token, { txs: [tx] });
  const [result] = Array.isArray(sent.body) ? sent.body : [];
  if (sent.status !== 200 || result?.status !== 'Success') throw new Error(`the transaction on ${gateway} was not a success: ${sent.status} ${JSON.stringify(sent.body).slice(0, 500)}`);
  return result.data.contents.address as string;
}

/** The contract's `n` as a node's read model has it, once the node applied the block that created it. */
export async function readContract(gateway: string, token: string, address: string, timeoutMs: number): Promise<number> {
  return until(`DeployCheck ${address} on ${gateway}`, timeoutMs, async () => {
    const rows = await call(gateway, 'GET', `/cirrus/search/DeployCheck?address=eq.${address}`, token);
    return rows.status === 200 && Array.isArray(rows.body) && rows.body.length === 1 ? Number(rows.body[0].n) : null;
  });
}

export interface NetworkCheck {
  address: string;
  /** n as each node read it, in the gateways' order */
  reads: number[];
}

/** Every node ready; a contract created on the first node; read back from every node. */
export async function checkNetwork(gateways: string[], tokens: string[], options: { readyTimeoutMs?: number; readTimeoutMs?: number } = {}): Promise<NetworkCheck> {
  await Promise.all(gateways.map((g) => waitReady(g, options.readyTimeoutMs ?? 120_000)));
  const start = 1 + Math.floor(Math.random() * 1_000_000);
  const address = await createContract(gateways[0], tokens[0], start);
  const reads = await Promise.all(gateways.map((g, i) => readContract(g, tokens[i], address, options.readTimeoutMs ?? 60_000)));
  const wrong = reads.findIndex((n) => n !== start);
  if (wrong >= 0) throw new Error(`${gateways[wrong]} reads n = ${reads[wrong]}, the transaction set ${start}`);
  return { address, reads };
}
