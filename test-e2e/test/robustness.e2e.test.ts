// Bad input never reaches a 500 (docs/conventions.md "Errors (platform endpoints)"): random bodies and
// parameters, from fast-check, on the endpoints of private chains, the chain
// and account lookups and createCert; each answer must be below 500.
import fc from 'fast-check';
import { AUTO_APPROVE_SOURCE } from '@platform/chains';
import { api, devToken, startTestNode, type TestNode } from './harness.js';

let node: TestNode;
let token: string;
let admin: string;
beforeAll(async () => {
  node = await startTestNode({ ADMIN_USERS: 'root' });
  token = await devToken(node, 'fuzzer', 'F');
  admin = await devToken(node, 'root', 'F');
  await api(node, 'POST', '/platform/v2.3/key', token);
  await api(node, 'POST', '/platform/v2.3/key', admin);
}, 180_000);
afterAll(async () => {
  await node?.destroy();
});

const field = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxKeys: 3 }), fc.double());
const chainBody = fc.record({
  label: field, contract: fc.oneof(field, fc.constant('AutoApprove')), src: fc.oneof(field, fc.constant(AUTO_APPROVE_SOURCE)), args: field, members: fc.oneof(field, fc.array(fc.record({ orgName: field, orgUnit: field, commonName: field, access: field }, { requiredKeys: [] }), { maxLength: 3 })),
  balances: fc.oneof(field, fc.array(fc.record({ address: field, balance: field }, { requiredKeys: [] }), { maxLength: 2 })), parentChain: field, metadata: fc.oneof(field, fc.record({ VM: field }, { requiredKeys: [] })),
}, { requiredKeys: [] });

test('chain creation (one and several): random bodies are never a 500', async () => {
  const bad: unknown[] = [];
  await fc.assert(fc.asyncProperty(fc.oneof(chainBody, field), async (body) => {
    const r = await api(node, 'POST', '/bloc/v2.2/chain', token, body);
    if (r.status >= 500) bad.push({ body, r: r.body });
    const r2 = await api(node, 'POST', '/bloc/v2.2/chains', token, [body]);
    if (r2.status >= 500) bad.push({ body, r2: r2.body });
  }), { numRuns: 150 });
  // the offending bodies and answers, should there be any
  expect(bad.slice(0, 5)).toEqual([]);
}, 300_000);

test('chain and account lookups, createCert: random parameters and bodies are never a 500', async () => {
  const bad: unknown[] = [];
  await fc.assert(fc.asyncProperty(fc.string(), fc.string(), field, async (a, b, body) => {
    for (const path of [`/bloc/v2.2/chain?limit=${encodeURIComponent(a)}&offset=${encodeURIComponent(b)}`, `/bloc/v2.2/chain/${encodeURIComponent(a)}`, `/platform-api/eth/v1.2/chain?chainid=${encodeURIComponent(a)}`, `/platform-api/eth/v1.2/account?address=${encodeURIComponent(a)}&chainid=${encodeURIComponent(b)}`]) {
      const r = await api(node, 'GET', path, token);
      if (r.status >= 500) bad.push({ path, r: r.body });
    }
    const c = await api(node, 'POST', '/bloc/v2.2/x509/createCert', admin, { subject: body, parentCertificate: a });
    if (c.status >= 500) bad.push({ body, c: c.body });
    const c2 = await api(node, 'POST', '/bloc/v2.2/x509/createCert', admin, body);
    if (c2.status >= 500) bad.push({ body, c2: c2.body });
  }), { numRuns: 150 });
  // the offending bodies and answers, should there be any
  expect(bad.slice(0, 5)).toEqual([]);
}, 300_000);
