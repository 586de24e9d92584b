import { type Insertable, type Kysely, type Selectable, type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { type FilterSpec, SQL_OPS } from '../../db/filter.ts';
import { type PageRequest, paginate } from '../../db/paginate.ts';
import { NEVER_EXPIRES } from './token.schema.ts';
import type { TokenTable } from './token.table.ts';

export type TokenRow = Selectable<TokenTable>;

const FILTER: FilterSpec = {
  fields: {
    created: { column: 'tokens.created', type: 'datetime' },
    label: { column: 'tokens.label', type: 'string' },
    // A token that never ends shows NEVER_EXPIRES and is compared as that; ordered, it comes last
    // as the nulls it is stored as do. The vendor's console orders tokens by it.
    expiry: {
      column: 'tokens.expiry',
      type: 'datetime',
      sortable: true,
      // A time is compared with eq, neq, gt, gte, lt and lte only (never contains).
      custom: (op, value) =>
        sql<SqlBool>`coalesce(tokens.expiry, ${NEVER_EXPIRES}) ${sql.raw(SQL_OPS[op as keyof typeof SQL_OPS])} ${value}`,
    },
  },
  defaultOrder: { column: 'tokens.id', direction: 'asc' },
  tiebreak: 'tokens.id',
};

export interface TokenOwner {
  accountId: number;
  userId: number;
}

/** The user's personal access tokens (not those of OAuth apps) that have not expired at `now` (a stored timestamp). */
function liveTokens(db: Kysely<Database>, owner: TokenOwner, now: string) {
  return db
    .selectFrom('tokens')
    .selectAll('tokens')
    .where('tokens.account_id', '=', owner.accountId)
    .where('tokens.user_id', '=', owner.userId)
    .where('tokens.app_id', 'is', null)
    .where((eb) => eb.or([eb('tokens.expiry', 'is', null), eb('tokens.expiry', '>', now)]));
}

export async function insertToken(db: Kysely<Database>, values: Insertable<TokenTable>): Promise<TokenRow> {
  return db.insertInto('tokens').values(values).returningAll().executeTakeFirstOrThrow();
}

export function listTokens(db: Kysely<Database>, owner: TokenOwner, now: string, request: PageRequest) {
  return paginate(liveTokens(db, owner, now), request, FILTER);
}

export function findToken(db: Kysely<Database>, owner: TokenOwner, now: string, id: number): Promise<TokenRow | undefined> {
  return liveTokens(db, owner, now).where('tokens.id', '=', id).executeTakeFirst();
}

export function updateTokenLabel(db: Kysely<Database>, owner: TokenOwner, id: number, label: string): Promise<TokenRow> {
  return db
    .updateTable('tokens')
    .set({ label })
    .where('account_id', '=', owner.accountId)
    .where('user_id', '=', owner.userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateTokenPrefix(db: Kysely<Database>, tokenHash: string, prefix: string): Promise<void> {
  await db.updateTable('tokens').set({ token_prefix: prefix }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteToken(db: Kysely<Database>, owner: TokenOwner, id: number): Promise<void> {
  await db
    .deleteFrom('tokens')
    .where('account_id', '=', owner.accountId)
    .where('user_id', '=', owner.userId)
    .where('id', '=', id)
    .execute();
}

export async function deleteTokensById(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('tokens').where('id', 'in', ids).execute();
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
