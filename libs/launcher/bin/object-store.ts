// The node's embedded object store (the s3rver package), run by the launcher
// as a process of its own when FILES_S3_ENDPOINT names no other store: the
// S3 API on loopback, FILES_S3_PORT, with its objects under
// <DATA_DIR>/object-store and the file application's bucket made at start.
// Its credentials are s3rver's fixed ones: loopback only, and the node's own.
import { join, resolve } from 'node:path';
import S3rver from 's3rver';
import { collectWhenIdle, createLogger, failStart, loadServiceConfig, stopOnSignals } from '@platform/common';

const config = loadServiceConfig('object-store', process.env, []);
const logger = createLogger('object-store', config.logLevel);
const directory = join(resolve(config.dataDir), 'object-store');
try {
  const server = new S3rver({ address: '127.0.0.1', port: config.files.s3.embeddedPort, directory, silent: true, configureBuckets: [{ name: config.files.s3.bucket }] });
  const { port } = await server.run();
  logger.info({ port, directory, bucket: config.files.s3.bucket }, 'the embedded object store is listening');
  stopOnSignals(logger, () => server.close());
  collectWhenIdle(logger, config.idleCollectionMb);
} catch (err) {
  failStart('object-store', `could not start: ${err instanceof Error ? err.message : String(err)}`);
}
