import { sql } from 'kysely';
import type { DbKind } from '../database.ts';
import { bigint, type MigrationDb, notNull, withSerialKey } from './schema-helpers.ts';

/** Nodes and what hangs off them: disks, configs, backups, addresses, VLANs, tags, stackscripts, uploads. */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  const s = db.schema;
  await withSerialKey(s.createTable('nodes'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('node_group', 'text', notNull)
    .addColumn('region', 'text', notNull)
    .addColumn('type', 'text', notNull)
    .addColumn('image', 'text')
    /** The StackScript the node was deployed with, if any (its active-deployment count follows the node). */
    .addColumn('stackscript_id', 'integer')
    .addColumn('status', 'text', notNull)
    .addColumn('hypervisor', 'text', notNull)
    .addColumn('ipv6', 'text')
    .addColumn('alerts_cpu', 'integer', notNull)
    .addColumn('alerts_io', 'integer', notNull)
    .addColumn('alerts_network_in', 'integer', notNull)
    .addColumn('alerts_network_out', 'integer', notNull)
    .addColumn('alerts_transfer_quota', 'integer', notNull)
    .addColumn('backups_enabled', 'integer', notNull)
    .addColumn('backups_day', 'text')
    .addColumn('backups_window', 'text')
    .addColumn('backups_last_successful', 'text')
    .addColumn('watchdog_enabled', 'integer', notNull)
    /** JSON array of service-clock ms of recent watchdog boots (the give-up rule counts them). */
    .addColumn('watchdog_boots', 'text', notNull)
    .addColumn('last_booted_config_id', 'integer')
    /** The kind of the operation in progress, if any; a node with one is not settled. */
    .addColumn('busy', 'text')
    /** Clone operations from this node under way; at most five at once (clone.service.ts). */
    .addColumn('clones_running', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('root_pass_hash', 'text')
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await s.createIndex('nodes_account').on('nodes').columns(['account_id', 'id']).execute();
  await s.createIndex('nodes_label').unique().on('nodes').columns(['account_id', 'label']).execute();
  // Lists filtered by region (the most common X-Filter) count and page off this index. Unique (as labels
  // are within an account), so SQLite knows it yields rows in label order with no ties to sort.
  await s.createIndex('nodes_region').unique().on('nodes').columns(['account_id', 'region', 'label']).execute();

  await withSerialKey(s.createTable('disks'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('node_id', 'integer', (c) => c.notNull().references('nodes.id').onDelete('cascade'))
    .addColumn('label', 'text', notNull)
    .addColumn('size', 'integer', notNull)
    .addColumn('filesystem', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('image', 'text')
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await s.createIndex('disks_node').on('disks').columns(['node_id', 'id']).execute();

  await withSerialKey(s.createTable('configs'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('node_id', 'integer', (c) => c.notNull().references('nodes.id').onDelete('cascade'))
    .addColumn('label', 'text', notNull)
    .addColumn('kernel', 'text', notNull)
    .addColumn('comments', 'text')
    .addColumn('memory_limit', 'integer', notNull)
    .addColumn('run_level', 'text', notNull)
    .addColumn('virt_mode', 'text', notNull)
    .addColumn('root_device', 'text', notNull)
    .addColumn('helpers', 'text', notNull)
    .addColumn('devices', 'text', notNull)
    .addColumn('interfaces', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await s.createIndex('configs_node').on('configs').columns(['node_id', 'id']).execute();

  await withSerialKey(s.createTable('backups'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('node_id', 'integer', (c) => c.notNull().references('nodes.id').onDelete('cascade'))
    .addColumn('type', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('label', 'text')
    .addColumn('region', 'text', notNull)
    /** JSON: the disks (label, size, filesystem) and configs (full) captured, for restores. */
    .addColumn('content', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .addColumn('finished', 'text')
    .execute();
  await s.createIndex('backups_node').on('backups').columns(['node_id', 'id']).execute();

  await s
    .createTable('ip_addresses')
    .addColumn('address', 'text', notNull)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('node_id', 'integer', (c) => c.references('nodes.id').onDelete('set null'))
    .addColumn('region', 'text', notNull)
    /** ipv4 or ipv6 (SLAAC); pools and ranges come with networking. */
    .addColumn('type', 'text', notNull)
    .addColumn('public', 'integer', notNull)
    .addColumn('prefix', 'integer', notNull)
    .addColumn('gateway', 'text')
    .addColumn('subnet_mask', 'text', notNull)
    .addColumn('rdns', 'text')
    /** The address's index among its pool's usable addresses, for finding the next free one quickly. */
    .addColumn('ordinal', bigint(kind), notNull)
    .addColumn('created', 'text', notNull)
    // Private addresses repeat from region to region (each has its own private network).
    .addPrimaryKeyConstraint('ip_addresses_pk', ['region', 'address'])
    .execute();
  await s.createIndex('ip_addresses_address').on('ip_addresses').columns(['address']).execute();
  await s.createIndex('ip_addresses_node').on('ip_addresses').columns(['node_id']).execute();
  await s.createIndex('ip_addresses_pool').unique().on('ip_addresses').columns(['region', 'type', 'public', 'ordinal']).execute();
  // The addresses of a page of nodes (account and node ids); also serves the account's own address list.
  await s.createIndex('ip_addresses_account').on('ip_addresses').columns(['account_id', 'node_id']).execute();

  await withSerialKey(s.createTable('vlans'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('region', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();
  await s.createIndex('vlans_label').unique().on('vlans').columns(['account_id', 'region', 'label']).execute();

  await s
    .createTable('tags')
    .addColumn('account_id', 'integer', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addPrimaryKeyConstraint('tags_pk', ['account_id', 'label'])
    .execute();
  await s
    .createTable('entity_tags')
    .addColumn('account_id', 'integer', notNull)
    .addColumn('tag', 'text', notNull)
    .addColumn('entity_type', 'text', notNull)
    .addColumn('entity_id', 'integer', notNull)
    .addPrimaryKeyConstraint('entity_tags_pk', ['account_id', 'entity_type', 'entity_id', 'tag'])
    .execute();
  await s.createIndex('entity_tags_tag').on('entity_tags').columns(['account_id', 'tag']).execute();
  // The X-Filter on tags looks objects up by type and id alone.
  await s.createIndex('entity_tags_entity').on('entity_tags').columns(['entity_type', 'entity_id', 'tag']).execute();

  await withSerialKey(s.createTable('stackscripts'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('username', 'text', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('description', 'text', notNull)
    .addColumn('images', 'text', notNull)
    .addColumn('script', 'text', notNull)
    .addColumn('rev_note', 'text', notNull)
    .addColumn('is_public', 'integer', notNull)
    .addColumn('user_defined_fields', 'text', notNull)
    .addColumn('deployments_total', 'integer', notNull)
    .addColumn('deployments_active', 'integer', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await s.createIndex('stackscripts_account').on('stackscripts').columns(['account_id', 'id']).execute();

  await s
    .createTable('image_uploads')
    .addColumn('image_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'integer', notNull)
    /** Who started the upload; the upload's event names them. */
    .addColumn('user_id', 'integer', notNull)
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', bigint(kind), notNull)
    /** received, once data has arrived: the token then no longer works. */
    .addColumn('state', 'text', notNull)
    .execute();

  await s.alterTable('images').addColumn('region', 'text').execute();
  await s.alterTable('images').addColumn('blob_key', 'text').execute();
  await s.alterTable('images').addColumn('source_node_id', 'integer').execute();
  await s.createIndex('images_expiry').on('images').columns(['expiry']).where(sql.ref('expiry'), 'is not', null).execute();
}
