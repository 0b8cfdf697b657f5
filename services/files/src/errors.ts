// The file application's error bodies. The spec's error table gives some
// rows a body `{success: false, data: <text>}` and others a `message`; every
// error here carries that shape and, beside it, the platform's error body
// (docs/conventions.md "Errors"): `{success: false, data | message, error:
// {code, message, details?, requestId}}`, so a client of the reference app
// and a client of the platform both read it.
import { PlatformError, type ErrorCode } from '@platform/common';

/** Which field carries the text for the reference app's clients. */
export type Shape = 'data' | 'message';

export class FileAppError extends PlatformError {
  override readonly name = 'FileAppError';
  constructor(
    code: ErrorCode,
    message: string,
    readonly shape: Shape,
    details?: Record<string, unknown>,
  ) {
    super(code, message, details);
  }
}

/** `{success: false, data}`: a file key or version that is not there, or a bad `version` or `member` (spec). */
export const dataError = (code: ErrorCode, text: string, details?: Record<string, unknown>) => new FileAppError(code, text, 'data', details);

/** `{success: false, message}`: the other rows of the spec's table. */
export const messageError = (code: ErrorCode, text: string, details?: Record<string, unknown>) => new FileAppError(code, text, 'message', details);

/** The same answer for a file that does not exist and one the caller is not a member of: a member list is no oracle. */
export const fileNotFound = (fileKey: string) => dataError('FILE_NOT_FOUND', `File ${fileKey} not found`);

export function errorBody(error: PlatformError, requestId: string): Record<string, unknown> {
  const shape: Shape = error instanceof FileAppError ? error.shape : 'message';
  return { success: false, [shape]: error.message, ...error.toBody(requestId) };
}
