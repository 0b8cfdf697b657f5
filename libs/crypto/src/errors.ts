export type CryptoErrorCode = 'BAD_HEX' | 'BAD_RLP' | 'BAD_SIGNATURE' | 'BAD_KEY' | 'BAD_SEAL';

/**
 * The one error type this package throws for bad input. `code` is stable:
 * callers map it (for instance `BAD_HEX` to a 400) without parsing messages.
 */
export class CryptoError extends Error {
  override readonly name: string = 'CryptoError';
  readonly code: CryptoErrorCode;

  constructor(code: CryptoErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
