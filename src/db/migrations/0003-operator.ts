import type { DbKind } from '../database.ts';
import { type MigrationDb, notNull } from './schema-helpers.ts';

/** Operator state every process must agree on (clock offset, transitions, faults), and held jobs. */
export async function up(db: MigrationDb, _kind: DbKind): Promise<void> {
  await db.schema
    .createTable('operator_settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    /** JSON. */
    .addColumn('value', 'text', notNull)
    .execute();
  // The transition kind a held job (status `held`) waits on an operator's advance for.
  await db.schema.alterTable('jobs').addColumn('transition', 'text').execute();
  await db.schema.createIndex('jobs_held').on('jobs').columns(['status', 'transition']).execute();
}
