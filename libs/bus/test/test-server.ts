// The bus tests' NATS: a real server started for the test file
// (startTestInfra) and one connection to it, both closed after the file's
// tests. Call it at a file's or a describe's top level.
import { startTestInfra, type TestInfra } from '@platform/launcher';
import { connectBus, type NatsConnection } from '../src/index.js';

export function natsForTests(name: string): { readonly nc: NatsConnection } {
  let infra: TestInfra | undefined;
  let nc: NatsConnection | undefined;
  beforeAll(async () => {
    infra = await startTestInfra({ nats: true });
    nc = await connectBus({ url: infra.nats!.url, name });
  });
  afterAll(async () => {
    await nc?.close();
    await infra?.stop();
  });
  return {
    get nc(): NatsConnection {
      if (!nc) throw new Error('the test NATS server is not started yet: use the connection inside a test');
      return nc;
    },
  };
}
