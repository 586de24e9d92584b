import type { DbKind } from '../database.ts';
import { type MigrationDb, notNull, withSerialKey } from './schema-helpers.ts';

/**
 * Managed monitoring's contacts, and the managed SSH settings of nodes whose settings were changed
 * (a node without a row has the defaults); a node's settings go with it.
 */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  const s = db.schema;
  await withSerialKey(s.createTable('managed_contacts'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('name', 'text')
    .addColumn('email', 'text')
    .addColumn('phone_primary', 'text')
    .addColumn('phone_secondary', 'text')
    .addColumn('contact_group', 'text')
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await s.createIndex('managed_contacts_account').on('managed_contacts').columns(['account_id', 'id']).execute();

  await s
    .createTable('managed_node_settings')
    .addColumn('node_id', 'integer', (c) => c.primaryKey().references('nodes.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', notNull)
    .addColumn('ssh_access', 'integer', notNull)
    .addColumn('ssh_user', 'text', notNull)
    .addColumn('ssh_ip', 'text', notNull)
    .addColumn('ssh_port', 'integer', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
}
