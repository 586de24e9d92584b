import crypto from 'node:crypto';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { Context } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { randomHex } from '../../random.ts';
import { userById } from '../account/user.service.ts';
import { parseScopes } from '../profile/scopes.ts';
import { hashToken } from '../profile/token.service.ts';
import type { OAuthClientRow } from './oauth-client.repository.ts';
import {
  activeClient,
  codeByValue,
  familyOfCode,
  issueGrantTokens,
  msUntil,
  refreshTokenByValue,
  revokeFamily,
  saveCode,
  spendCode,
  spendRefreshToken,
} from './oauth-grant.service.ts';
import { redirectUriMatches } from './redirect-uris.ts';

const { InvalidClientError, InvalidGrantError, InvalidRequestError, InvalidScopeError } = OAuth2Server;

/** RFC 7636 4.2: code-challenge = 43*128unreserved. */
const CODE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;

/** Who signs in: the user, and for a refresh the app, grant family and hash of the token spent. */
export interface OAuthUser {
  id: number;
  accountId: number;
  username: string;
  appId?: number;
  refresh?: { family: string; hash: string };
}

export interface OAuthClient extends OAuth2Server.Client {
  id: string;
  redirectUris: string[];
  grants: string[];
  isPublic: boolean;
}

export interface ModelOptions {
  /** Where the request was made: the authorization page (the client's secret is not asked) or the token endpoint. */
  endpoint: 'authorize' | 'token';
  /** The redirect URIs a client may name (redirect-uris.ts clientRedirectUris); its registered one alone if not given. */
  redirectUris?(client: OAuthClientRow): string[];
  /** The token request leaves out `redirect_uri` (getAuthorizationCode says when it may). */
  redirectUriOmitted?: boolean;
}

/**
 * The library's storage and policy hooks over this service's tables. The library's own checks of
 * expiry use the machine clock; the service clock (which an operator may move) decides here, and the
 * dates handed back are the time left on it, counted from now.
 */
export function oauthModel(ctx: Context, options: ModelOptions) {
  const dateIn = (ms: number) => new Date(Date.now() + ms);
  const scopeList = (canonical: string) => canonical.split(' ');
  const redirectUrisOf = (client: OAuthClientRow) => options.redirectUris?.(client) ?? [client.redirect_uri];

  const model = {
    generateAuthorizationCode: async () => randomHex(ctx.random, 32),
    generateAccessToken: async () => randomHex(ctx.random, 32),
    generateRefreshToken: async () => randomHex(ctx.random, 32),

    /**
     * An active client. At the token endpoint a confidential client must prove itself with its secret
     * and a public one must not present one (RFC 6749 2.3; a public client proves the code with PKCE).
     */
    async getClient(clientId: string, clientSecret: string | null | undefined): Promise<OAuthClient | null> {
      const row = await activeClient(ctx, clientId);
      if (!row) return null;
      const isPublic = row.public === 1;
      if (options.endpoint === 'token') {
        if (isPublic ? Boolean(clientSecret) : !secretMatches(row.secret_hash, clientSecret)) return null;
      }
      return {
        id: row.id,
        label: row.label,
        isPublic,
        redirectUris: redirectUrisOf(row),
        grants: ['authorization_code', 'refresh_token'],
      };
    },

    /** One of the client's redirect URIs, or one with a query added to it (redirect-uris.ts redirectUriMatches). */
    async validateRedirectUri(redirectUri: string, client: OAuthClient): Promise<boolean> {
      return client.redirectUris.some((uri) => redirectUriMatches(uri, redirectUri));
    },

    /** The reference's scope syntax; no scope asked for is every scope (`*`), which grants still cut for a restricted user. */
    async validateScope(_user: OAuthUser, _client: OAuthClient, scope?: string[]): Promise<string[]> {
      try {
        return scopeList(parseScopes(scope?.join(' ') ?? '*').canonical);
      } catch (error) {
        if (error instanceof ApiError) throw new InvalidScopeError(`Invalid scope: ${error.errors[0]?.reason ?? error.message}`);
        throw error;
      }
    },

    /** A public client must use PKCE (RFC 7636; the method defaults to S256, plain is refused); a challenge is 43*128unreserved. */
    async saveAuthorizationCode(
      code: Pick<
        OAuth2Server.AuthorizationCode,
        'authorizationCode' | 'redirectUri' | 'scope' | 'codeChallenge' | 'codeChallengeMethod'
      >,
      client: OAuthClient,
      user: OAuthUser,
    ): Promise<OAuth2Server.AuthorizationCode> {
      if (client.isPublic && !code.codeChallenge) {
        throw new InvalidRequestError('Missing parameter: `code_challenge`: a public client must use PKCE (S256)');
      }
      if (code.codeChallenge && !CODE_CHALLENGE.test(code.codeChallenge)) {
        throw new InvalidRequestError('Invalid parameter: `code_challenge` must be 43 to 128 of A-Z a-z 0-9 - . _ ~');
      }
      const row = await saveCode(ctx, {
        code: code.authorizationCode,
        clientId: client.id,
        accountId: user.accountId,
        userId: user.id,
        redirectUri: code.redirectUri,
        scopes: (code.scope ?? ['*']).join(' '),
        codeChallenge: code.codeChallenge ?? null,
        codeChallengeMethod: code.codeChallenge ? (code.codeChallengeMethod ?? 'S256') : null,
      });
      return { ...code, expiresAt: dateIn(msUntil(ctx, row.expiry)), client, user };
    },

    /** A code used before is a replay: what it was exchanged for is revoked (RFC 6749 4.1.2). */
    async getAuthorizationCode(value: string): Promise<OAuth2Server.AuthorizationCode | null> {
      const row = await codeByValue(ctx, value);
      if (row && row.state !== 'live') {
        if (row.state === 'spent') await revokeFamily(ctx, row.client_id, row.code_hash);
        return null;
      }
      const live = row && (await liveGrant(row, 'authorization code'));
      if (!row || !live) return null;
      const { left, user } = live;
      return {
        authorizationCode: value,
        expiresAt: dateIn(left),
        redirectUri: options.redirectUriOmitted ? await omittedRedirectUri(row) : row.redirect_uri,
        scope: scopeList(row.scopes),
        client: { id: row.client_id, grants: [] },
        user,
        ...(row.code_challenge
          ? { codeChallenge: row.code_challenge, codeChallengeMethod: row.code_challenge_method ?? 'S256' }
          : {}),
      };
    },

    /** Spent by this exchange, or by a concurrent one: then this one is the replay. */
    async revokeAuthorizationCode(code: OAuth2Server.AuthorizationCode): Promise<boolean> {
      if (await spendCode(ctx, code.authorizationCode)) return true;
      await revokeFamily(ctx, code.client.id, familyOfCode(code.authorizationCode));
      return false;
    },

    /** A rotated refresh token used again is a replay: its whole family is revoked (RFC 9700 4.14.2). */
    async getRefreshToken(value: string): Promise<OAuth2Server.RefreshToken | null> {
      const row = await refreshTokenByValue(ctx, value);
      if (row && row.state !== 'live') {
        if (row.state === 'spent') await revokeFamily(ctx, row.client_id, row.family);
        return null;
      }
      const live = row && (await liveGrant(row, 'refresh token'));
      if (!row || !live) return null;
      const { left, user } = live;
      return {
        refreshToken: value,
        refreshTokenExpiresAt: dateIn(left),
        scope: scopeList(row.scopes),
        client: { id: row.client_id, grants: [] },
        user: { ...user, appId: row.app_id, refresh: { family: row.family, hash: hashToken(value) } },
      };
    },

    async revokeToken(token: OAuth2Server.RefreshToken): Promise<boolean> {
      if (await spendRefreshToken(ctx, token.refreshToken)) return true;
      const { refresh } = token.user as OAuthUser;
      if (refresh) await revokeFamily(ctx, token.client.id, refresh.family);
      return false;
    },

    async saveToken(token: OAuth2Server.Token, client: OAuthClient, user: OAuthUser): Promise<OAuth2Server.Token> {
      const scopes = parseScopes((token.scope ?? ['*']).join(' ')).canonical;
      const result = await issueGrantTokens(ctx, {
        clientId: client.id,
        userId: user.id,
        accountId: user.accountId,
        scopes,
        accessToken: token.accessToken,
        refreshToken: token.refreshToken ?? randomHex(ctx.random, 32),
        ...(user.appId !== undefined ? { appId: user.appId } : {}),
        ...(user.refresh
          ? { family: user.refresh.family, spent: { kind: 'refresh_token', hash: user.refresh.hash } }
          : { family: familyOfCode(exchangedCode(token)), spent: { kind: 'code', hash: familyOfCode(exchangedCode(token)) } }),
      });
      if (result.kind === 'client-gone') throw new InvalidClientError('Invalid client: client is invalid');
      if (result.kind === 'app-gone') throw new InvalidGrantError('Invalid grant: the app was revoked');
      if (result.kind === 'revoked')
        throw new InvalidGrantError('Invalid grant: the grant was revoked (a code or token of it was used twice)');
      return {
        ...token,
        accessTokenExpiresAt: dateIn(msUntil(ctx, result.accessExpiry)),
        refreshTokenExpiresAt: dateIn(msUntil(ctx, result.refreshExpiry)),
        scope: scopeList(scopes),
        client,
        user,
      };
    },
  };

  /** A stored code or refresh token still in time, with its user (gone with a deleted user: null). */
  async function liveGrant(
    row: { expiry: string; account_id: number; user_id: number },
    what: string,
  ): Promise<{ left: number; user: OAuthUser } | null> {
    const left = msUntil(ctx, row.expiry);
    if (left <= 0) throw new InvalidGrantError(`Invalid grant: ${what} has expired`);
    const user = await userById(ctx, row.account_id, row.user_id);
    return user ? { left, user: { id: user.id, accountId: user.account_id, username: user.username } } : null;
  }

  /**
   * RFC 6749 4.1.3 asks a token request to repeat the code's redirect URI. It may leave it out when the
   * code went to one of the client's own redirect URIs (with a query it added or not), as a console
   * does: the empty text stands for "not to check". Otherwise refused before the code is spent.
   */
  async function omittedRedirectUri(row: { client_id: string; redirect_uri: string }): Promise<string> {
    const client = await activeClient(ctx, row.client_id);
    if (client && redirectUrisOf(client).some((uri) => redirectUriMatches(uri, row.redirect_uri))) return '';
    throw new InvalidRequestError(
      'Missing parameter: `redirect_uri`: the code was sent to a redirect URI the client no longer has registered',
    );
  }

  // The library's types ask for getAccessToken, which only its authenticate() uses; /v4 checks tokens itself.
  return model as unknown as OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel;
}

/** The code a token is issued for; the library passes it to saveToken in a code exchange. */
function exchangedCode(token: OAuth2Server.Token): string {
  const value = (token as OAuth2Server.Token & { authorizationCode?: unknown }).authorizationCode;
  if (typeof value !== 'string') throw new Error('a code exchange without its code');
  return value;
}

/** Compares the SHA-256 of a presented secret with the kept one in constant time. */
function secretMatches(hash: string | null, secret: string | null | undefined): boolean {
  if (!hash || !secret) return false;
  return crypto.timingSafeEqual(Buffer.from(hashToken(secret), 'hex'), Buffer.from(hash, 'hex'));
}
