import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { TokenTable } from './token.table.ts';

export type TokenRow = Selectable<TokenTable>;

export async function insertToken(db: Kysely<Database>, values: Insertable<TokenTable>): Promise<TokenRow> {
  return db.insertInto('tokens').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The token and its user, by the hash of the presented value. */
export async function findTokenByHash(db: Kysely<Database>, tokenHash: string) {
  return db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .select([
      'tokens.id as token_id',
      'tokens.account_id',
      'tokens.user_id',
      'tokens.scopes',
      'tokens.expiry',
      'users.username',
      'users.restricted',
    ])
    .where('tokens.token_hash', '=', tokenHash)
    .executeTakeFirst();
}
