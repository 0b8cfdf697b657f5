export { createTokenVerifier, wwwAuthenticate } from './verifier.js';
export type { AuthOptions, Principal, TokenVerifier } from './verifier.js';
