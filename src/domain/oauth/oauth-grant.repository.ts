import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { GrantState, OAuthCodeTable, OAuthRefreshTokenTable } from './oauth-grant.table.ts';

export type OAuthCodeRow = Selectable<OAuthCodeTable>;
export type NewCodeRow = Insertable<OAuthCodeTable>;
export type NewRefreshTokenRow = Insertable<OAuthRefreshTokenTable>;

export async function insertCode(db: Kysely<Database>, values: NewCodeRow): Promise<void> {
  await db.insertInto('oauth_codes').values(values).execute();
}

export function findCode(db: Kysely<Database>, codeHash: string): Promise<OAuthCodeRow | undefined> {
  return db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
}

/** Where a code is now; undefined once removed at its expiry. */
export async function codeState(db: Kysely<Database>, codeHash: string): Promise<GrantState | undefined> {
  const row = await db.selectFrom('oauth_codes').select('state').where('code_hash', '=', codeHash).executeTakeFirst();
  return row?.state;
}

/** Spends a live code; true for the one caller that spent it (a code is exchanged once). */
export async function spendCodeRow(db: Kysely<Database>, codeHash: string): Promise<boolean> {
  const result = await db
    .updateTable('oauth_codes')
    .set({ state: 'spent' })
    .where('code_hash', '=', codeHash)
    .where('state', '=', 'live')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function revokeCodeRow(db: Kysely<Database>, codeHash: string): Promise<void> {
  await db.updateTable('oauth_codes').set({ state: 'revoked' }).where('code_hash', '=', codeHash).execute();
}

export async function deleteCode(db: Kysely<Database>, codeHash: string): Promise<void> {
  await db.deleteFrom('oauth_codes').where('code_hash', '=', codeHash).execute();
}

export async function insertRefreshToken(db: Kysely<Database>, values: NewRefreshTokenRow): Promise<void> {
  await db.insertInto('oauth_refresh_tokens').values(values).execute();
}

/** A refresh token with the app it belongs to. */
export function findRefreshToken(db: Kysely<Database>, tokenHash: string) {
  return db
    .selectFrom('oauth_refresh_tokens')
    .innerJoin('oauth_apps', 'oauth_apps.id', 'oauth_refresh_tokens.app_id')
    .select([
      'oauth_refresh_tokens.scopes',
      'oauth_refresh_tokens.expiry',
      'oauth_refresh_tokens.state',
      'oauth_refresh_tokens.family',
      'oauth_apps.id as app_id',
      'oauth_apps.client_id',
      'oauth_apps.user_id',
      'oauth_apps.account_id',
    ])
    .where('oauth_refresh_tokens.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Where a refresh token is now; undefined once removed at its expiry. */
export async function refreshTokenState(db: Kysely<Database>, tokenHash: string): Promise<GrantState | undefined> {
  const row = await db.selectFrom('oauth_refresh_tokens').select('state').where('token_hash', '=', tokenHash).executeTakeFirst();
  return row?.state;
}

/** Spends a live refresh token; true for the one caller that spent it (each is used once). */
export async function spendRefreshTokenRow(db: Kysely<Database>, tokenHash: string): Promise<boolean> {
  const result = await db
    .updateTable('oauth_refresh_tokens')
    .set({ state: 'spent' })
    .where('token_hash', '=', tokenHash)
    .where('state', '=', 'live')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Revokes every refresh token of a family; the ids of the access tokens issued with them. */
export async function revokeRefreshFamily(db: Kysely<Database>, family: string): Promise<number[]> {
  const rows = await db
    .updateTable('oauth_refresh_tokens')
    .set({ state: 'revoked' })
    .where('family', '=', family)
    .returning('access_token_id')
    .execute();
  return rows.flatMap((r) => (r.access_token_id === null ? [] : [r.access_token_id]));
}

export async function deleteExpiredRefreshTokens(db: Kysely<Database>, appId: number, now: string): Promise<void> {
  await db.deleteFrom('oauth_refresh_tokens').where('app_id', '=', appId).where('expiry', '<=', now).execute();
}

/** The grant family and client of the refresh token an access token was issued with; undefined for a personal token. */
export function findFamilyOfAccessToken(db: Kysely<Database>, accessTokenHash: string) {
  return db
    .selectFrom('tokens')
    .innerJoin('oauth_refresh_tokens', 'oauth_refresh_tokens.access_token_id', 'tokens.id')
    .innerJoin('oauth_apps', 'oauth_apps.id', 'oauth_refresh_tokens.app_id')
    .select(['oauth_refresh_tokens.family', 'oauth_apps.client_id'])
    .where('tokens.token_hash', '=', accessTokenHash)
    .executeTakeFirst();
}
