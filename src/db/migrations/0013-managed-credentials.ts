import type { DbKind } from '../database.ts';
import { type MigrationDb, notNull, withSerialKey } from './schema-helpers.ts';

/**
 * Managed credentials and each account's managed SSH key. What must be read back (usernames,
 * passwords, private keys) is stored sealed (src/secrets/secret-box.ts), never in plain text.
 */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  const s = db.schema;
  await withSerialKey(s.createTable('managed_credentials'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('label', 'text', notNull)
    /** Null when none was given. */
    .addColumn('username_sealed', 'text')
    .addColumn('password_sealed', 'text', notNull)
    .addColumn('last_decrypted', 'text')
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await s.createIndex('managed_credentials_label').unique().on('managed_credentials').columns(['account_id', 'label']).execute();

  await s
    .createTable('managed_ssh_keys')
    .addColumn('account_id', 'integer', (c) => c.primaryKey())
    /** OpenSSH form, with its comment: what the API answers. */
    .addColumn('public_key', 'text', notNull)
    /** OpenSSH's private key format, sealed. */
    .addColumn('private_key_sealed', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();
}
