// The one logger of every process: pino, JSON lines, with secrets redacted
// wherever they could appear (headers, keys, passwords, tokens).
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

export const REDACTED_PATHS = [
  'authorization',
  'password',
  'privateKey',
  'token',
  'accessToken',
  'secret',
  'vaultPassword',
  '*.authorization',
  '*.password',
  '*.privateKey',
  '*.token',
  '*.accessToken',
  '*.secret',
  '*.vaultPassword',
  '*.secretAccessKey',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'config.vaultPassword',
  'config.nodeCaKey',
  'config.extStorage.secretAccessKey',
  'config.files.s3.secretAccessKey',
];

export function createLogger(service: string, level: string = 'info', destination?: pino.DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
