import { sql } from 'kysely';
import type { DbKind } from '../database.ts';
import type { MigrationDb } from './schema-helpers.ts';

/**
 * Spent codes and refresh tokens are kept (as `spent`) instead of deleted, so that a replay is told
 * from an unknown value and revokes what was issued from the same grant (RFC 9700 2.2.2, 4.14.2):
 * each refresh token names its family (the hash of the code the grant began with) and the access
 * token issued beside it. A token from before has a family of its own.
 */
export async function up(db: MigrationDb, _kind: DbKind): Promise<void> {
  const s = db.schema;
  await s
    .alterTable('oauth_codes')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('live'))
    .execute();
  await s
    .alterTable('oauth_refresh_tokens')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('live'))
    .execute();
  await s
    .alterTable('oauth_refresh_tokens')
    .addColumn('family', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await sql`update oauth_refresh_tokens set family = token_hash`.execute(db);
  await s
    .alterTable('oauth_refresh_tokens')
    .addColumn('access_token_id', 'integer', (c) => c.references('tokens.id').onDelete('set null'))
    .execute();
  await s.createIndex('oauth_refresh_tokens_family').on('oauth_refresh_tokens').column('family').execute();
}
