import type { DbKind } from '../database.ts';
import { bigint, type MigrationDb, notNull } from './schema-helpers.ts';

const TRAFFIC = ['v4_in', 'v4_out', 'v4_private_in', 'v4_private_out', 'v6_in', 'v6_out', 'v6_private_in', 'v6_private_out'];

/**
 * Measured usage of nodes that really run (a compute driver): `node_samples` holds their machines'
 * counters as read on a five-minute grid (bounded: the past month), rates being the differences
 * between consecutive samples; `node_transfer_months` the public bytes of each month, kept as a
 * running total so that no sample needs keeping for it. Both go with their node.
 */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  let samples = db.schema
    .createTable('node_samples')
    .addColumn('node_id', 'integer', (c) => c.notNull().references('nodes.id').onDelete('cascade'))
    .addColumn('at', bigint(kind), notNull)
    .addColumn('run', 'text', notNull)
    .addColumn('cpu_seconds', 'double precision', notNull)
    .addColumn('disk_read_bytes', bigint(kind), notNull)
    .addColumn('disk_write_bytes', bigint(kind), notNull);
  for (const column of TRAFFIC) samples = samples.addColumn(column, bigint(kind), notNull);
  await samples.addPrimaryKeyConstraint('node_samples_pk', ['node_id', 'at']).execute();
  await db.schema.createIndex('node_samples_at').on('node_samples').column('at').execute();

  await db.schema
    .createTable('node_transfer_months')
    .addColumn('node_id', 'integer', (c) => c.notNull().references('nodes.id').onDelete('cascade'))
    .addColumn('year', 'integer', notNull)
    .addColumn('month', 'integer', notNull)
    .addColumn('bytes_in', bigint(kind), notNull)
    .addColumn('bytes_out', bigint(kind), notNull)
    .addPrimaryKeyConstraint('node_transfer_months_pk', ['node_id', 'year', 'month'])
    .execute();
}
