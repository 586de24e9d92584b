import type { DbKind } from '../database.ts';
import { bigint, type MigrationDb, notNull } from './schema-helpers.ts';

/**
 * Compute agents (`cumulo agent --host NAME`, one per compute host): what each last reported (its
 * regions, memory and disk, the machines it runs) and when. A node placed on one names its host, and
 * a job that does a node's real work carries that host so that only its agent claims it; both null
 * in the single-process setup.
 */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  await db.schema
    .createTable('compute_hosts')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('regions', 'text')
    .addColumn('memory_total_mb', 'integer', notNull)
    .addColumn('memory_free_mb', 'integer', notNull)
    .addColumn('disk_free_mb', bigint(kind), notNull)
    .addColumn('machines', 'text', notNull)
    .addColumn('started_at', bigint(kind), notNull)
    .addColumn('heartbeat_at', bigint(kind), notNull)
    .execute();
  await db.schema.alterTable('nodes').addColumn('host', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('host', 'text').execute();
}
