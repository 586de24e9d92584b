import type { DbKind } from '../database.ts';
import { type MigrationDb, notNull } from './schema-helpers.ts';

/** OAuth clients: applications an account registered to sign users in through this service. */
export async function up(db: MigrationDb, _kind: DbKind): Promise<void> {
  const s = db.schema;
  await s
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'integer', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('redirect_uri', 'text', notNull)
    .addColumn('public', 'integer', notNull)
    .addColumn('secret_hash', 'text')
    .addColumn('status', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await s.createIndex('oauth_clients_account').on('oauth_clients').columns(['account_id', 'created']).execute();
}
