import type { DbKind } from '../database.ts';
import { bigint, type MigrationDb } from './schema-helpers.ts';

/** When a change to a managed service may have it probed next: changes probe at once at most once a minute. */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  await db.schema.alterTable('managed_services').addColumn('reprobe_at', bigint(kind)).execute();
}
