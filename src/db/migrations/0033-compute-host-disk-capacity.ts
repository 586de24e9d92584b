import type { DbKind } from '../database.ts';
import { bigint, type MigrationDb } from './schema-helpers.ts';

/**
 * What a compute agent's storage for disks holds in all (its free space and what its disk files
 * take), so that the disks placed on it are counted at their full sizes against it; null in the
 * reports of agents from before, whose free space alone is checked.
 */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  await db.schema.alterTable('compute_hosts').addColumn('disk_capacity_mb', bigint(kind)).execute();
}
