// Sign-in by authorization code with PKCE (S256) against the identity
// provider the discovery document names; the token stays in this tab's
// sessionStorage.
import { json } from './api.js';

const redirectUri = () => `${location.origin}/dashboard`;
const b64url = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const random = (n) => b64url(crypto.getRandomValues(new Uint8Array(n)));

export async function signIn(config, discovery) {
  const verifier = random(32);
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const state = random(16);
  sessionStorage.setItem('dashboard.pkce', JSON.stringify({ verifier, state }));
  const url = new URL(discovery.authorization_endpoint);
  url.search = new URLSearchParams({ response_type: 'code', client_id: config.clientId, redirect_uri: redirectUri(), scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256', state }).toString();
  location.assign(url.toString());
}

/** Back from the provider with a code: exchanged for the token, and the code taken out of the address. */
export async function finishSignIn(config, discovery, params) {
  const pending = JSON.parse(sessionStorage.getItem('dashboard.pkce') ?? 'null');
  sessionStorage.removeItem('dashboard.pkce');
  history.replaceState(null, '', '/dashboard');
  if (params.get('error')) throw new Error(`the sign-in was refused: ${params.get('error_description') ?? params.get('error')}`);
  if (!pending || pending.state !== params.get('state')) throw new Error('the sign-in answer does not belong to this tab; sign in again');
  const body = new URLSearchParams({ grant_type: 'authorization_code', code: params.get('code'), redirect_uri: redirectUri(), client_id: config.clientId, code_verifier: pending.verifier });
  const { body: answer } = await json(discovery.token_endpoint, { method: 'POST', body });
  sessionStorage.setItem('dashboard.token', answer.access_token);
}

export function usernameOf(token) {
  try {
    const claims = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    return claims.preferred_username ?? claims.sub ?? '';
  } catch {
    return '';
  }
}
