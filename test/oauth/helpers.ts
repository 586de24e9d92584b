import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { setUserPassword } from '../../src/domain/account/user.service.ts';
import type { Reply, TestApp } from '../helpers/app.ts';

/** The console's client and an address it signs in from in the test app (listening on 127.0.0.1:8080, registered as such). */
export const CONSOLE = { clientId: 'cumulo-console', redirectUri: 'http://localhost:8080/' };
export const PASSWORD = 'correct horse battery';

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(32).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

export function form(fields: Record<string, string | undefined>): string {
  const entries = Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined);
  return new URLSearchParams(entries).toString();
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export async function givePassword(app: TestApp, username: string, password = PASSWORD): Promise<void> {
  await setUserPassword(app.runtime.ctx, username, password);
}

export interface SignIn {
  clientId?: string;
  redirectUri?: string;
  scope?: string;
  state?: string;
  challenge?: string | undefined;
  method?: string;
  username: string;
  password?: string;
  decision?: 'allow' | 'deny';
}

export function authorizeFields(s: SignIn): Record<string, string | undefined> {
  return {
    client_id: s.clientId ?? CONSOLE.clientId,
    redirect_uri: s.redirectUri ?? CONSOLE.redirectUri,
    response_type: 'code',
    scope: s.scope,
    state: s.state ?? 'state-1',
    code_challenge: s.challenge,
    code_challenge_method: s.challenge ? (s.method ?? 'S256') : undefined,
  };
}

/** Posts the sign-in form as a browser would, from `address` when given (else inject's 127.0.0.1). */
export async function postSignIn(app: TestApp, s: SignIn, address?: string): Promise<Reply> {
  assert.ok(app.runtime.app);
  const res = await app.runtime.app.inject({
    method: 'POST',
    url: '/oauth/authorize',
    headers: FORM,
    payload: form({
      ...authorizeFields(s),
      username: s.username,
      password: s.password ?? PASSWORD,
      decision: s.decision ?? 'allow',
    }),
    ...(address ? { remoteAddress: address } : {}),
  });
  return { status: res.statusCode, headers: res.headers, body: res.body };
}

/** The query of the redirect back to the client. */
export function redirectQuery(reply: Reply): URLSearchParams {
  assert.equal(reply.status, 302, `expected a redirect: ${reply.status} ${String(reply.body).slice(0, 300)}`);
  return new URL(String(reply.headers.location)).searchParams;
}

export async function signInForCode(app: TestApp, s: SignIn): Promise<string> {
  const query = redirectQuery(await postSignIn(app, s));
  const code = query.get('code');
  assert.ok(code, `no code in the redirect: ${query}`);
  return code;
}

export function tokenRequest(app: TestApp, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) {
  return app.request('POST', '/oauth/token', { token: null, headers: { ...FORM, ...headers }, body: form(fields) });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** Signs in through the console client with PKCE and exchanges the code. */
export async function consoleTokens(app: TestApp, username: string, scope?: string): Promise<Tokens> {
  const { verifier, challenge } = pkcePair();
  const code = await signInForCode(app, { username, scope, challenge });
  const res = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code,
    client_id: CONSOLE.clientId,
    redirect_uri: CONSOLE.redirectUri,
    code_verifier: verifier,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}
