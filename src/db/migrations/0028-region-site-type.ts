import type { MigrationDb } from './schema-helpers.ts';

/**
 * A region's site type (`core` or `distributed`), which clients filter regions by, and the host id
 * its nodes show (both written from the catalog on every start, as the other columns are).
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('regions')
    .addColumn('site_type', 'text', (c) => c.notNull().defaultTo('core'))
    .execute();
  await db.schema
    .alterTable('regions')
    .addColumn('host_uuid', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}
