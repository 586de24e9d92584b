import type { DbKind } from '../database.ts';
import { type MigrationDb, notNull, withSerialKey } from './schema-helpers.ts';

/** Firewalls with their rulesets, and the devices that assign them to nodes. */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  const s = db.schema;
  await withSerialKey(s.createTable('firewalls'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('rules', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await s.createIndex('firewalls_label').unique().on('firewalls').columns(['account_id', 'label']).execute();

  await withSerialKey(s.createTable('firewall_devices'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('firewall_id', 'integer', (c) => c.notNull().references('firewalls.id').onDelete('cascade'))
    .addColumn('node_id', 'integer', (c) => c.notNull().references('nodes.id').onDelete('cascade'))
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await s.createIndex('firewall_devices_pair').unique().on('firewall_devices').columns(['firewall_id', 'node_id']).execute();
  await s.createIndex('firewall_devices_node').on('firewall_devices').columns(['node_id']).execute();
}
