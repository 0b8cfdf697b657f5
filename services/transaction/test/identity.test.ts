// IDENTITY_REQUIRED at admission: a sender without a valid registered
// certificate is refused (403) with a message saying how to enrol; its own
// registration is admitted; a positive answer is remembered at most
// POSITIVE_TTL_MS; reserved system contract names are refused. The block
// service's IDENTITY.status is played by the test (real NATS, real vault).
import { refusal } from '@platform/common/testing';
import { Wallet } from 'ethers';
import { IDENTITY, TX, call, handle, serve, type IdentityRecord, type RawTransactionBody, type SubmitItem } from '@platform/bus';
import { createLogger } from '@platform/common';
import { REGISTRY_ADDRESS } from '@platform/identity';
import { POSITIVE_TTL_MS } from '../src/index.js';
import { ethersSigningHash, fixture, type Fields, type Fixture } from './helpers.js';
const upload: SubmitItem = { type: 'CONTRACT', payload: { contract: 'Note', src: 'contract Note { string text; }', metadata: { VM: 'SolidVM' } } };
const registration: SubmitItem = { type: 'FUNCTION', payload: { contractAddress: REGISTRY_ADDRESS, method: 'registerCertificate', args: { newCertificateString: 'pem' }, metadata: { VM: 'SolidVM' } } };

describe('transaction - IDENTITY_REQUIRED', () => {
  let f: Fixture;
  /** addresses the played block service says are registered */
  const registered = new Set<string>();
  let asked = 0;
  let block: { stop(): Promise<unknown> } | null = null;

  const playBlockService = async (registry = true) => {
    await block?.stop();
    block = await serve(f.nc, { name: 'block', version: '0.0.0', logger: createLogger('block', 'silent') }, [
      handle(IDENTITY.status, ({ address }): IdentityRecord => {
        asked++;
        const certificate = registered.has(address)
          ? { certificate: 'cc'.repeat(20), userAddress: address, commonName: 'x', organization: 'Acme', organizationalUnit: '', country: '', certificateString: '', parent: 'dd'.repeat(20), expirationDate: Math.floor(Date.now() / 1000) + 3600 }
          : null;
        return { address, registry, blockNumber: 1, certificate };
      }),
    ]);
    await f.nc.flush();
  };

  beforeAll(async () => {
    f = await fixture();
    await f.start({ env: { IDENTITY_REQUIRED: 'true' } });
    await playBlockService();
  });
  afterAll(async () => {
    await block?.stop();
    await f?.stop();
  });

  const submit = (username: string, transactions: SubmitItem[]) => call(f.nc, TX.submit, { username, organization: null, chainId: null, transactions });

  test('an unregistered vault user is refused with 403 IDENTITY_REQUIRED saying how to enrol; nothing is admitted', async () => {
    const address = await f.user('nocert');
    const err = await refusal(submit('nocert', [upload]));
    expect(err).toMatchObject({ code: 'IDENTITY_REQUIRED', status: 403, details: { address, registry: REGISTRY_ADDRESS } });
    expect(err.message).toContain('POST /platform/v2.3/key');
    expect(err.message).toContain('/bloc/v2.2/x509/createCert');
    expect(await call(f.nc, TX.nonce, { username: 'tester', organization: null, address })).toMatchObject({ nextNonce: 0 });
  });

  test('its own registration is admitted without a certificate, mixed with anything else it is not', async () => {
    await f.user('enrolling');
    expect((await submit('enrolling', [registration]))[0].status).toBe('Pending');
    expect((await refusal(submit('enrolling', [registration, upload]))).code).toBe('IDENTITY_REQUIRED');
  });

  test('a registered user is admitted; the answer is remembered, but a revocation counts after at most POSITIVE_TTL_MS', async () => {
    const address = await f.user('certified');
    registered.add(address);
    const before = asked;
    for (let i = 0; i < 5; i++) expect((await submit('certified', [upload]))[0].status).toBe('Pending');
    await Promise.all(Array.from({ length: 10 }, () => submit('certified', [upload])));
    expect(asked - before).toBe(1);
    registered.delete(address);
    await new Promise((r) => setTimeout(r, POSITIVE_TTL_MS + 100));
    expect((await refusal(submit('certified', [upload]))).code).toBe('IDENTITY_REQUIRED');
    // a refusal is not remembered: the registration counts at once
    registered.add(address);
    expect((await submit('certified', [upload]))[0].status).toBe('Pending');
  });

  test('raw transactions: refused until the key is registered; the registration call itself is admitted', async () => {
    const wallet = Wallet.createRandom();
    const address = wallet.address.toLowerCase().slice(2);
    const raw = (fields: Fields) => {
      const sig = wallet.signingKey.sign(ethersSigningHash(fields));
      return call(f.nc, TX.submitRaw, { username: 'raw-user', organization: null, chainId: null, transaction: { ...fields, r: sig.r, s: sig.s, v: sig.v } as RawTransactionBody });
    };
    const create = (nonce: number): Fields => ({ nonce, gasPrice: 1, gasLimit: 100_000, to: null, value: 0, initOrData: Buffer.from('contract Note { }').toString('hex'), metadata: { VM: 'SolidVM', name: 'Note' } });
    const err = await refusal(raw(create(0)));
    expect(err).toMatchObject({ code: 'IDENTITY_REQUIRED', details: { address } });
    const register: Fields = { nonce: 0, gasPrice: 0, gasLimit: 100_000, to: REGISTRY_ADDRESS, value: 0, initOrData: '', metadata: { VM: 'SolidVM', funcName: 'registerCertificate', args: '{"newCertificateString":"pem"}' } };
    expect((await raw(register)).status).toBe('Pending');
    registered.add(address);
    expect((await raw(create(1))).status).toBe('Pending');
  });

  test('reserved system contract names are refused at admission (400 naming the field)', async () => {
    const address = await f.user('namer');
    registered.add(address);
    const reserved: SubmitItem = { type: 'CONTRACT', payload: { contract: 'Certificate', src: 'contract Certificate { }', metadata: { VM: 'SolidVM' } } };
    const err = await refusal(submit('namer', [upload, reserved]));
    expect(err).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'txs[1].payload.contract' } });
    expect(err.message).toMatch(/reserved/);
  });

  test('a genesis without a registry, or no block service: refused, never admitted on trust', async () => {
    await f.user('anyone');
    await playBlockService(false);
    const err = await refusal(submit('anyone', [upload]));
    expect(err.code).toBe('IDENTITY_REQUIRED');
    expect(err.message).toMatch(/genesis has no certificate registry/);
    await block?.stop();
    block = null;
    expect((await refusal(submit('anyone', [upload]))).code).toBe('UNAVAILABLE');
  });
});
