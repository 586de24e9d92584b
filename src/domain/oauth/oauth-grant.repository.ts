import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { OAuthCodeTable, OAuthRefreshTokenTable } from './oauth-grant.table.ts';

export type OAuthCodeRow = Selectable<OAuthCodeTable>;
export type OAuthRefreshTokenRow = Selectable<OAuthRefreshTokenTable>;

export async function insertCode(db: Kysely<Database>, values: OAuthCodeRow): Promise<void> {
  await db.insertInto('oauth_codes').values(values).execute();
}

export function findCode(db: Kysely<Database>, codeHash: string): Promise<OAuthCodeRow | undefined> {
  return db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
}

/** Deletes a code; true for the one caller that deleted it (a code is exchanged once). */
export async function deleteCode(db: Kysely<Database>, codeHash: string): Promise<boolean> {
  const result = await db.deleteFrom('oauth_codes').where('code_hash', '=', codeHash).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteExpiredCodes(db: Kysely<Database>, now: string): Promise<void> {
  await db.deleteFrom('oauth_codes').where('expiry', '<=', now).execute();
}

export async function insertRefreshToken(db: Kysely<Database>, values: OAuthRefreshTokenRow): Promise<void> {
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
      'oauth_apps.id as app_id',
      'oauth_apps.client_id',
      'oauth_apps.user_id',
      'oauth_apps.account_id',
    ])
    .where('oauth_refresh_tokens.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Deletes a refresh token; true for the one caller that deleted it (each is used once). */
export async function deleteRefreshToken(db: Kysely<Database>, tokenHash: string): Promise<boolean> {
  const result = await db.deleteFrom('oauth_refresh_tokens').where('token_hash', '=', tokenHash).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteExpiredRefreshTokens(db: Kysely<Database>, appId: number, now: string): Promise<void> {
  await db.deleteFrom('oauth_refresh_tokens').where('app_id', '=', appId).where('expiry', '<=', now).execute();
}
