// @platform/identity: the certificate registry (its SolidVM source and where
// it lives), the X.509 built-ins SolidVM calls, reads of the registry's
// state, and the rules shared by the services. See README.md.
export { REGISTRY_ADDRESS, REGISTRY_CONTRACT, CERTIFICATE_CONTRACT, REGISTRY_SOURCE } from './registry-source.js';
export { certificateFields, certificateSignedBy, certificateSignedByKey, signatureValid } from './hooks.js';
export { certificateContractOf, userCertFields, validCertificateOf, type RegisteredCertificate } from './state.js';
export { RESERVED_CONTRACT_NAMES, isReservedContractName, isRegistration, REGISTER_FUNCTION, REGISTRATION_GAS_LIMIT, registrationFields } from './rules.js';
export { registryGenesisContract } from './genesis.js';
export { identityHooks, identityOf, identityOfCertificate, type IdentityHooks } from './vm-hooks.js';
export { nodeCaFiles, readNodeCa, type NodeCaFiles, type NodeCaSource } from './node-ca.js';
export { VALIDATOR_SET_ADDRESS, VALIDATOR_SET_CONTRACT, VALIDATOR_SET_SOURCE, readValidatorSet, validatorSetGenesisContract } from './validator-set.js';
