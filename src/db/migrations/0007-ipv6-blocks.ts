import type { DbKind } from '../database.ts';
import { type MigrationDb, notNull } from './schema-helpers.ts';

/**
 * IPv6 blocks cut from a region's prefix for an account: pools (a /124 routed to every node of the
 * account in the region; no node) and ranges (a /64 or /56 routed to one node, gone with it).
 */
export async function up(db: MigrationDb, _kind: DbKind): Promise<void> {
  await db.schema
    .createTable('ipv6_blocks')
    .addColumn('region', 'text', notNull)
    /** The block's first address, in canonical form. */
    .addColumn('range', 'text', notNull)
    .addColumn('prefix', 'integer', notNull)
    .addColumn('account_id', 'integer', notNull)
    /** pool or range */
    .addColumn('kind', 'text', notNull)
    .addColumn('node_id', 'integer', (c) => c.references('nodes.id').onDelete('cascade'))
    /** The block's last address. */
    .addColumn('route_target', 'text')
    .addColumn('created', 'text', notNull)
    .addPrimaryKeyConstraint('ipv6_blocks_pk', ['region', 'range'])
    .execute();
  await db.schema.createIndex('ipv6_blocks_account').on('ipv6_blocks').columns(['account_id', 'kind', 'node_id']).execute();
}
