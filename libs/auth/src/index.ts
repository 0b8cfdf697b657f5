export { ADMIN_ROLE, createTokenVerifier, isAdministrator, wwwAuthenticate } from './verifier.js';
export type { AuthOptions, Principal, TokenVerifier, VerifyOptions } from './verifier.js';
