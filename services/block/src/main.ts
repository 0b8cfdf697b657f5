// The block service as a process: node configuration and BLOCK_* settings
// from the environment (a bad value stops the start naming the variable), an
// existing NATS (the launcher starts an embedded one and passes its URL).
// With `--rebuild` it empties the chain stores and the node's results and
// exits: the launcher's `--rebuild` runs it before the node starts.
import { collectWhenIdle, ConfigError, createLogger, failStart, loadServiceConfig, stopOnSignals } from '@platform/common';
import { loadBlockSettings, rebuildFromNetwork, startBlockService, type BlockSettings } from './index.js';

function fail(message: string): never {
  return failStart('block', message);
}
const config = loadServiceConfig('block', process.env, ['natsUrl', 'natsCredentials'], { natsUrl: 'the URL of the NATS server with JetStream' });
let settings: BlockSettings;
try {
  settings = loadBlockSettings(process.env);
} catch (err) {
  fail(err instanceof ConfigError ? err.message : String(err));
}

const logger = createLogger('block', config.logLevel);
const credentials = { user: 'block', seed: config.natsCredentials };
// `--rebuild`: a step run alone before the node starts, not a start (src/rebuild.ts)
if (process.argv.includes('--rebuild')) {
  try {
    await rebuildFromNetwork({ config, logger, natsUrl: config.natsUrl, natsCredentials: credentials, dataDir: config.dataDir });
    process.exit(0);
  } catch (err) {
    logger.fatal({ err }, 'the rebuild failed; run it again');
    fail(`rebuild failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
try {
  const service = await startBlockService({ config, logger, natsUrl: config.natsUrl, natsCredentials: credentials, dataDir: config.dataDir, settings });
  stopOnSignals(logger, () => service.stop());
  collectWhenIdle(logger, config.idleCollectionMb);
} catch (err) {
  logger.fatal({ err }, 'the block service could not start');
  fail(`could not start: ${err instanceof Error ? err.message : String(err)}`);
}
