export { CertError, type CertErrorCode } from './errors.js';
export { pemBlocks, pemToDer, derToPem } from './pem.js';
export { toUncompressedPublicKey, publicKeyFromPem, publicKeyToPem, privateKeyFromPem, privateKeyToPem } from './keys.js';
export {
  ID_SECP256K1,
  ID_ECDSA_WITH_SHA256,
  type DistinguishedName,
  type ParsedCertificate,
  type CertificateOptions,
  type NodeCa,
  type ChainFailure,
  type ChainResult,
  createNodeCa,
  issueCertificate,
  parseCertificate,
  verifyCertificateSignature,
  verifyCertificateKey,
  verifyChain,
} from './certificate.js';
