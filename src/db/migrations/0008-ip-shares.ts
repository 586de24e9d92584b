import type { DbKind } from '../database.ts';
import { type MigrationDb, notNull } from './schema-helpers.ts';

/**
 * Public IPv4 addresses shared with a node besides the node that holds them: the sharing node may
 * bring them up too. A share ends with either node (the holder's addresses go back to the pool) and
 * when the address is assigned elsewhere.
 */
export async function up(db: MigrationDb, _kind: DbKind): Promise<void> {
  await db.schema
    .createTable('ip_shares')
    .addColumn('region', 'text', notNull)
    .addColumn('address', 'text', notNull)
    .addColumn('account_id', 'integer', notNull)
    /** The node the address is shared with (not its holder). */
    .addColumn('node_id', 'integer', (c) => c.notNull().references('nodes.id').onDelete('cascade'))
    .addColumn('created', 'text', notNull)
    .addPrimaryKeyConstraint('ip_shares_pk', ['node_id', 'region', 'address'])
    .addForeignKeyConstraint('ip_shares_address', ['region', 'address'], 'ip_addresses', ['region', 'address'], (c) =>
      c.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('ip_shares_by_address').on('ip_shares').columns(['region', 'address']).execute();
}
