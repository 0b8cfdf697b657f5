// The wire form of request/reply bodies: JSON text. Values that do not fit a
// double (balances, uint256 arguments) travel as decimal strings by
// convention of the message types, never as JSON numbers.
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value ?? null));
}

export function decodeJson<T>(data: Uint8Array): T {
  return JSON.parse(data.length === 0 ? 'null' : decoder.decode(data)) as T;
}
