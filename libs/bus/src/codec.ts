// The wire form of request/reply bodies: JSON text. Values that do not fit a
// double (balances, uint256 arguments) travel as decimal strings by
// convention of the message types, never as JSON numbers.
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A value that is JSON text already (see preEncoded). */
class EncodedJson {
  constructor(readonly text: string) {}
}

/**
 * A handler's answer that is JSON text already (results kept as the text they
 * were announced in, say): sent as it is instead of being parsed and encoded
 * again. Typed as the value the text encodes; the text must be valid JSON.
 */
export function preEncoded<T>(text: string): T {
  return new EncodedJson(text) as unknown as T;
}

/** The JSON text of a value (`preEncoded` text as it is). */
export function jsonTextOf(value: unknown): string {
  return value instanceof EncodedJson ? value.text : JSON.stringify(value ?? null);
}

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(jsonTextOf(value));
}

export function decodeJson<T>(data: Uint8Array): T {
  return JSON.parse(data.length === 0 ? 'null' : decoder.decode(data)) as T;
}
