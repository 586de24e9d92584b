import type { MigrationDb } from './schema-helpers.ts';

/** A region's site type (`core` or `distributed`), which clients filter regions by. */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('regions')
    .addColumn('site_type', 'text', (c) => c.notNull().defaultTo('core'))
    .execute();
}
