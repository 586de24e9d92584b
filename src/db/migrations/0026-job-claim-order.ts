import type { MigrationDb } from './schema-helpers.ts';

/**
 * Queued jobs in the order they are claimed (due time, then id), straight off an index: a claim reads
 * the first one and stops. It replaces the index on (status, run_at), its prefix, which left
 * PostgreSQL to sort every due job of the same time by id.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.createIndex('jobs_claim_order').on('jobs').columns(['status', 'run_at', 'id']).execute();
  await db.schema.dropIndex('jobs_due').execute();
}
