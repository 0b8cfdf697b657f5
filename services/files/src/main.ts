// The files service as a process: configuration from the environment, NATS,
// the object store, and its HTTP server on loopback (FILES_PORT), where the
// gateway routes the file endpoints.
import { tokenVerifierOf } from '@platform/auth';
import { connectBus } from '@platform/bus';
import { collectWhenIdle, createLogger, failStart, loadServiceConfig, stopOnSignals } from '@platform/common';
import { buildFilesApp } from './app.js';
import { ObjectStore, storeSettings } from './store.js';

const config = loadServiceConfig('files', process.env, ['natsUrl', 'natsCredentials', 'oauthDiscoveryUrl'], {
  natsUrl: 'the URL of the NATS server the services answer on',
  oauthDiscoveryUrl: "the identity provider's discovery document, whose tokens the files service accepts (npm start sets it)",
});
const logger = createLogger('files', config.logLevel);
try {
  const nc = await connectBus({ url: config.natsUrl, name: 'files', credentials: { user: 'files', seed: config.natsCredentials }, logger });
  const verifier = tokenVerifierOf(config);
  const settings = storeSettings(config.files.s3);
  const store = new ObjectStore(settings, logger);
  // the legacy storage's account: its own bucket and keys, in its own store or the node's
  const ext = config.extStorage;
  const legacyStore = ext ? new ObjectStore({ ...settings, endpoint: ext.endpoint ?? settings.endpoint, bucket: ext.bucket, accessKeyId: ext.accessKeyId, secretAccessKey: ext.secretAccessKey }, logger) : null;
  const app = await buildFilesApp({ config, logger, nc, verifier, store, legacyStore });
  await app.listen({ host: '127.0.0.1', port: config.files.port });
  logger.info({ objectStore: store.settings.endpoint, bucket: store.bucket }, 'the files service is listening');
  stopOnSignals(logger, async () => {
    await app.close();
    await nc.drain();
  });
  collectWhenIdle(logger, config.idleCollectionMb);
} catch (err) {
  logger.fatal({ err }, 'the files service could not start');
  failStart('files', `could not start: ${err instanceof Error ? err.message : String(err)}`);
}
