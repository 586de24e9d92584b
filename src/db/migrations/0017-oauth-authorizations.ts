import type { DbKind } from '../database.ts';
import { type MigrationDb, notNull, withSerialKey } from './schema-helpers.ts';

/**
 * What the OAuth sign-in hands out: a user's authorization of a client (an app), the short-lived
 * codes of the exchange and the refresh tokens. Access tokens are rows of `tokens` that name their
 * app; removing a client, a user or an app takes everything issued under it along at once.
 */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  const s = db.schema;
  await withSerialKey(s.createTable('oauth_apps'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('scopes', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('expiry', 'text')
    .execute();
  await s.createIndex('oauth_apps_user_client').unique().on('oauth_apps').columns(['user_id', 'client_id']).execute();
  await s.createIndex('oauth_apps_client').on('oauth_apps').column('client_id').execute();

  await s
    .createTable('oauth_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', notNull)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('redirect_uri', 'text', notNull)
    .addColumn('scopes', 'text', notNull)
    .addColumn('code_challenge', 'text')
    .addColumn('code_challenge_method', 'text')
    .addColumn('expiry', 'text', notNull)
    .execute();
  await s.createIndex('oauth_codes_client').on('oauth_codes').column('client_id').execute();
  await s.createIndex('oauth_codes_user').on('oauth_codes').column('user_id').execute();

  await s
    .createTable('oauth_refresh_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'integer', (c) => c.notNull().references('oauth_apps.id').onDelete('cascade'))
    .addColumn('scopes', 'text', notNull)
    .addColumn('expiry', 'text', notNull)
    .execute();
  await s.createIndex('oauth_refresh_tokens_app').on('oauth_refresh_tokens').column('app_id').execute();

  await s
    .alterTable('tokens')
    .addColumn('app_id', 'integer', (c) => c.references('oauth_apps.id').onDelete('cascade'))
    .execute();
  await s.createIndex('tokens_app').on('tokens').column('app_id').execute();
}
