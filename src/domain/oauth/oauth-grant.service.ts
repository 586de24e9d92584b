import type { Context } from '../../context.ts';
import { inTransaction } from '../../db/transaction.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { formatScopes, parseScopes, unionScopes } from '../profile/scopes.ts';
import { forgetCachedTokens, hashToken, issueToken, revokeTokens, scheduleTokenExpiry } from '../profile/token.service.ts';
import { OAUTH_CODE_EXPIRE, scheduleAppExpiry } from './oauth.jobs.ts';
import { findAppById, findAppOf, insertApp, updateApp } from './oauth-app.repository.ts';
import { findClientById, type OAuthClientRow } from './oauth-client.repository.ts';
import {
  codeState,
  findCode,
  findFamilyOfAccessToken,
  findRefreshToken,
  insertCode,
  insertRefreshToken,
  type NewCodeRow,
  type OAuthCodeRow,
  refreshTokenState,
  revokeCodeRow,
  revokeRefreshFamily,
  spendCodeRow,
  spendRefreshTokenRow,
} from './oauth-grant.repository.ts';

/** The reference's lifetime of an OAuth access token: two hours. */
export const ACCESS_TOKEN_LIFETIME_S = 2 * 3600;
/** A refresh token lasts 30 days; each use gives a new one, so a session in use does not run out. */
export const REFRESH_TOKEN_LIFETIME_S = 30 * 86400;
/** An authorization code must be exchanged within 5 minutes (RFC 6749 4.1.2 asks for a short life). */
export const CODE_LIFETIME_S = 300;

function stampIn(ctx: Context, seconds: number): string {
  return toTimestamp(ctx.clock.nowMs() + seconds * 1000);
}

/** How long until a stored time, by the service clock (negative once past). */
export function msUntil(ctx: Context, stamp: string): number {
  return Date.parse(`${stamp}Z`) - ctx.clock.nowMs();
}

/** A client that may take part in a sign-in: it exists and is active. */
export async function activeClient(ctx: Context, clientId: string): Promise<OAuthClientRow | undefined> {
  const row = await findClientById(ctx.db, clientId);
  return row?.status === 'active' ? row : undefined;
}

export interface NewCode {
  code: string;
  clientId: string;
  accountId: number;
  userId: number;
  redirectUri: string;
  scopes: string;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
}

/** Keeps an authorization code (its hash) for CODE_LIFETIME_S, and schedules its removal. */
export async function saveCode(ctx: Context, spec: NewCode): Promise<NewCodeRow> {
  const row: NewCodeRow = {
    code_hash: hashToken(spec.code),
    client_id: spec.clientId,
    account_id: spec.accountId,
    user_id: spec.userId,
    redirect_uri: spec.redirectUri,
    scopes: spec.scopes,
    code_challenge: spec.codeChallenge,
    code_challenge_method: spec.codeChallengeMethod,
    expiry: stampIn(ctx, CODE_LIFETIME_S),
  };
  await inTransaction(ctx.db, async (trx) => {
    await insertCode(trx, row);
    await enqueueJob(trx, ctx.clock, {
      kind: OAUTH_CODE_EXPIRE,
      payload: { codeHash: row.code_hash },
      runAt: Date.parse(`${row.expiry}Z`),
    });
  });
  return row;
}

export function codeByValue(ctx: Context, code: string): Promise<OAuthCodeRow | undefined> {
  return findCode(ctx.db, hashToken(code));
}

/** Spends a code: true for the one exchange that gets it. */
export function spendCode(ctx: Context, code: string): Promise<boolean> {
  return spendCodeRow(ctx.db, hashToken(code));
}

export function refreshTokenByValue(ctx: Context, value: string) {
  return findRefreshToken(ctx.db, hashToken(value));
}

/** Spends a refresh token: true for the one refresh that gets it. */
export function spendRefreshToken(ctx: Context, value: string): Promise<boolean> {
  return spendRefreshTokenRow(ctx.db, hashToken(value));
}

/** The family of the grant a code begins: its hash, which every token issued from it carries. */
export function familyOfCode(code: string): string {
  return hashToken(code);
}

/**
 * A code or refresh token used again (RFC 9700 4.14.2): whoever holds it may have stolen it, so
 * everything issued from the same grant ends at once, access tokens included, and any exchange of
 * the family still on its way issues nothing (it holds the client's lock, as issueGrantTokens does).
 */
export async function revokeFamily(ctx: Context, clientId: string, family: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    await findClientById(trx, clientId);
    await revokeCodeRow(trx, family);
    await revokeTokens(trx, await revokeRefreshFamily(trx, family));
  });
  await forgetCachedTokens(ctx);
}

/**
 * RFC 7009: a client ends a sign-in with a token it holds. A refresh token, or an access token issued
 * with one, ends its whole grant: every refresh token of the family and the access tokens issued with
 * them. A token unknown, spent, expired or issued to another client is left alone, and the answer is
 * the same (RFC 7009 2.2: nothing tells the caller whether the token was good).
 */
export async function revokeGrantOfToken(ctx: Context, clientId: string, token: string, hint: string | undefined): Promise<void> {
  const tokenHash = hashToken(token);
  const asRefresh = async () => {
    const row = await findRefreshToken(ctx.db, tokenHash);
    return row && { family: row.family, client_id: row.client_id };
  };
  const asAccess = () => findFamilyOfAccessToken(ctx.db, tokenHash);
  const [first, second] = hint === 'access_token' ? [asAccess, asRefresh] : [asRefresh, asAccess];
  const grant = (await first()) ?? (await second());
  if (grant?.client_id !== clientId) return;
  await revokeFamily(ctx, clientId, grant.family);
}

export interface TokenGrant {
  clientId: string;
  userId: number;
  accountId: number;
  /** Canonical scope text. */
  scopes: string;
  accessToken: string;
  refreshToken: string;
  /** The app whose refresh token was spent; absent for a code exchange, which makes or widens the app. */
  appId?: number;
  /** The family of the grant, and what was spent for this issue: it must still be spent, not revoked by a replay. */
  family: string;
  spent: { kind: 'code' | 'refresh_token'; hash: string };
}

export type TokenGrantResult =
  | { kind: 'issued'; accessExpiry: string; refreshExpiry: string }
  | { kind: 'client-gone' }
  | { kind: 'app-gone' }
  | { kind: 'revoked' };

/**
 * Issues an access token and a refresh token under the user's app for the client, in one
 * transaction that holds the client's lock: a client deleted meanwhile, an app revoked after its
 * refresh token was read, or a grant whose family a replay revoked, issues nothing.
 */
export async function issueGrantTokens(ctx: Context, grant: TokenGrant): Promise<TokenGrantResult> {
  return inTransaction(ctx.db, async (trx) => {
    const client = await findClientById(trx, grant.clientId);
    if (client?.status !== 'active') return { kind: 'client-gone' };
    const { kind, hash } = grant.spent;
    const spentState = kind === 'code' ? await codeState(trx, hash) : await refreshTokenState(trx, hash);
    if (spentState !== 'spent') return { kind: 'revoked' };
    // One reading of the clock: the app's creation and the expiries count from the same second.
    const nowMs = ctx.clock.nowMs();
    const accessExpiry = toTimestamp(nowMs + ACCESS_TOKEN_LIFETIME_S * 1000);
    const refreshExpiry = toTimestamp(nowMs + REFRESH_TOKEN_LIFETIME_S * 1000);
    let appId: number;
    if (grant.appId !== undefined) {
      const app = await findAppById(trx, grant.appId);
      if (!app) return { kind: 'app-gone' };
      appId = app.id;
      await updateApp(trx, appId, { expiry: refreshExpiry });
    } else {
      const app = await findAppOf(trx, grant.userId, grant.clientId);
      if (app) {
        appId = app.id;
        const scopes = formatScopes(unionScopes(parseScopes(app.scopes).set, parseScopes(grant.scopes).set));
        await updateApp(trx, appId, { scopes, expiry: refreshExpiry });
      } else {
        const created = await insertApp(trx, {
          account_id: grant.accountId,
          user_id: grant.userId,
          client_id: grant.clientId,
          scopes: grant.scopes,
          created: toTimestamp(nowMs),
          expiry: refreshExpiry,
        });
        appId = created.id;
      }
    }
    const { row } = await issueToken(trx, ctx, {
      accountId: grant.accountId,
      userId: grant.userId,
      label: client.label,
      scopes: grant.scopes,
      expiry: accessExpiry,
      value: grant.accessToken,
      appId,
    });
    await scheduleTokenExpiry(trx, ctx, row);
    await insertRefreshToken(trx, {
      token_hash: hashToken(grant.refreshToken),
      app_id: appId,
      scopes: grant.scopes,
      expiry: refreshExpiry,
      family: grant.family,
      access_token_id: row.id,
    });
    await scheduleAppExpiry(trx, ctx, appId, refreshExpiry);
    return { kind: 'issued', accessExpiry, refreshExpiry };
  });
}
