export type CertErrorCode = 'BAD_PEM' | 'BAD_CERTIFICATE' | 'BAD_KEY' | 'WRONG_CURVE' | 'BAD_INPUT';

/**
 * The one error type this package throws for bad input. `code` is stable so
 * that callers map it to a 4xx (or a failed transaction's reason) without
 * parsing messages.
 */
export class CertError extends Error {
  override readonly name: string = 'CertError';
  readonly code: CertErrorCode;

  constructor(code: CertErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
