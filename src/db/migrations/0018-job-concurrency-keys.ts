import type { DbKind } from '../database.ts';
import type { MigrationDb } from './schema-helpers.ts';

/** A job's concurrency key: a worker runs only a few jobs of one key at once (src/jobs/worker.ts). */
export async function up(db: MigrationDb, _kind: DbKind): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('concurrency_key', 'text').execute();
}
