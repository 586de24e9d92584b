import type { DbKind } from '../database.ts';
import { type MigrationDb, notNull } from './schema-helpers.ts';

/** How many public IPv4 addresses the operator lets a node hold in all (a support request's answer). */
export async function up(db: MigrationDb, _kind: DbKind): Promise<void> {
  await db.schema
    .createTable('ip_allowances')
    .addColumn('node_id', 'integer', (c) => c.primaryKey().references('nodes.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', notNull)
    /** Public IPv4 addresses the node may hold in all; a node without a row may hold one. */
    .addColumn('public_ipv4', 'integer', notNull)
    .execute();
}
