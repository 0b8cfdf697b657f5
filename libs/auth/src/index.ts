export { ADMIN_ROLE, createTokenVerifier, isAdministrator, tokenVerifierOf, wwwAuthenticate } from './verifier.js';
export type { AuthOptions, Principal, TokenVerifier, VerifyOptions } from './verifier.js';
