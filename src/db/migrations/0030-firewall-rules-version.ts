import type { MigrationDb } from './schema-helpers.ts';

/** A firewall's ruleset version: 1 when made, one more with each rules update (clients compare it). */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('firewalls')
    .addColumn('rules_version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}
