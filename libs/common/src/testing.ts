// Helpers for the tests of every package (`@platform/common/testing`); not
// part of the runtime API.
import { PlatformError } from './errors.js';

/** The PlatformError a promise is refused with; anything else it ends with fails the test. */
export async function refusal(promise: Promise<unknown>): Promise<PlatformError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof PlatformError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}
