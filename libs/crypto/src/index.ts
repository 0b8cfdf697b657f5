export { CryptoError, type CryptoErrorCode } from './errors.js';
export { type Hex, hexToBytes, bytesToHex, strip0x, concatBytes } from './hex.js';
export { keccak256, keccak256Hex } from './hash.js';
export {
  type KeyPair,
  type Signature,
  generateKeyPair,
  keyPairFromPrivateKey,
  publicKeyFromPrivateKey,
  addressFromPublicKey,
  sign,
  recoverPublicKey,
  recoverAddress,
  isHighS,
  verify,
} from './keys.js';
export { type RlpInput, type RlpDecoded, rlpEncode, rlpDecode, rlpHeaderLength, writeRlpHeader, bigintToMinimalBytes, bytesToBigint } from './rlp.js';
export {
  type UnsignedTxFields,
  type SigningForm,
  signingPayload,
  signingHash,
  transactionHash,
  contractAddress,
  saltedContractAddress,
} from './transaction.js';
export { CHAIN_KEY_BYTES, generateChainKey, seal, open, sealInEpoch, openInEpoch, epochOf, wrapKey, unwrapKey, ecdhSecret } from './seal.js';
