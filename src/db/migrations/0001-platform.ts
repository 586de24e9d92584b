import { sql } from 'kysely';
import type { DbKind } from '../database.ts';
import { bigint, type MigrationDb, notNull, withSerialKey } from './schema-helpers.ts';

export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  const s = db.schema;
  await withSerialKey(s.createTable('accounts'), kind)
    .addColumn('euuid', 'text', notNull)
    .addColumn('email', 'text', notNull)
    .addColumn('first_name', 'text', notNull)
    .addColumn('last_name', 'text', notNull)
    .addColumn('company', 'text', notNull)
    .addColumn('address_1', 'text', notNull)
    .addColumn('address_2', 'text', notNull)
    .addColumn('city', 'text', notNull)
    .addColumn('state', 'text', notNull)
    .addColumn('zip', 'text', notNull)
    .addColumn('country', 'text', notNull)
    .addColumn('phone', 'text', notNull)
    .addColumn('tax_id', 'text', notNull)
    .addColumn('balance', 'double precision', notNull)
    .addColumn('balance_uninvoiced', 'double precision', notNull)
    .addColumn('active_since', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();

  await withSerialKey(s.createTable('users'), kind)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', notNull)
    .addColumn('restricted', 'integer', notNull)
    .addColumn('global_grants', 'text', notNull)
    .addColumn('timezone', 'text', notNull)
    .addColumn('email_notifications', 'integer', notNull)
    .addColumn('ip_whitelist_enabled', 'integer', notNull)
    .addColumn('lish_auth_method', 'text', notNull)
    .addColumn('authorized_keys', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();
  await s.createIndex('users_account').on('users').columns(['account_id', 'id']).execute();

  await s
    .createTable('entity_grants')
    .addColumn('account_id', 'integer', notNull)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('entity_type', 'text', notNull)
    .addColumn('entity_id', 'integer', notNull)
    .addColumn('permissions', 'text', notNull)
    .addPrimaryKeyConstraint('entity_grants_pk', ['user_id', 'entity_type', 'entity_id'])
    .execute();
  await s.createIndex('entity_grants_entity').on('entity_grants').columns(['account_id', 'entity_type', 'entity_id']).execute();

  await withSerialKey(s.createTable('tokens'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('label', 'text', notNull)
    .addColumn('scopes', 'text', notNull)
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_prefix', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('expiry', 'text')
    .execute();
  await s.createIndex('tokens_user').on('tokens').columns(['account_id', 'user_id', 'id']).execute();

  await withSerialKey(s.createTable('ssh_keys'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('label', 'text', notNull)
    .addColumn('ssh_key', 'text', notNull)
    .addColumn('created', 'text', notNull)
    .execute();
  await s.createIndex('ssh_keys_user').on('ssh_keys').columns(['account_id', 'user_id', 'id']).execute();

  await withSerialKey(s.createTable('events'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('user_id', 'integer')
    .addColumn('username', 'text')
    .addColumn('action', 'text', notNull)
    .addColumn('entity_type', 'text')
    .addColumn('entity_id', 'integer')
    .addColumn('entity_label', 'text')
    .addColumn('entity_url', 'text')
    .addColumn('secondary_entity', 'text')
    .addColumn('status', 'text', notNull)
    .addColumn('percent_complete', 'integer')
    .addColumn('rate', 'text')
    .addColumn('time_remaining', 'text')
    .addColumn('message', 'text')
    .addColumn('duration', 'double precision')
    .addColumn('seen', 'integer', notNull)
    .addColumn('read', 'integer', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await s.createIndex('events_account').on('events').columns(['account_id', 'id']).execute();

  await withSerialKey(s.createTable('jobs'), kind)
    .addColumn('account_id', 'integer')
    .addColumn('kind', 'text', notNull)
    .addColumn('payload', 'text', notNull)
    .addColumn('run_at', bigint(kind), notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('attempts', 'integer', notNull)
    .addColumn('max_attempts', 'integer', notNull)
    .addColumn('dedupe_key', 'text')
    .addColumn('lease_token', 'text')
    .addColumn('lease_until', bigint(kind))
    .addColumn('last_error', 'text')
    .addColumn('created', 'text', notNull)
    .execute();
  await s.createIndex('jobs_due').on('jobs').columns(['status', 'run_at']).execute();
  await s
    .createIndex('jobs_dedupe')
    .unique()
    .on('jobs')
    .column('dedupe_key')
    .where(sql.ref('dedupe_key'), 'is not', null)
    .execute();

  await s
    .createTable('regions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('label', 'text', notNull)
    .addColumn('country', 'text', notNull)
    .addColumn('capabilities', 'text', notNull)
    .addColumn('resolvers_ipv4', 'text', notNull)
    .addColumn('resolvers_ipv6', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('sort', 'integer', notNull)
    .execute();

  await s
    .createTable('node_types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('label', 'text', notNull)
    .addColumn('class', 'text', notNull)
    .addColumn('disk', 'integer', notNull)
    .addColumn('memory', 'integer', notNull)
    .addColumn('vcpus', 'integer', notNull)
    .addColumn('gpus', 'integer', notNull)
    .addColumn('transfer', 'integer', notNull)
    .addColumn('network_out', 'integer', notNull)
    .addColumn('price_hourly', 'double precision', notNull)
    .addColumn('price_monthly', 'double precision', notNull)
    .addColumn('backups_price_hourly', 'double precision', notNull)
    .addColumn('backups_price_monthly', 'double precision', notNull)
    .addColumn('successor', 'text')
    .addColumn('sort', 'integer', notNull)
    .execute();

  await s
    .createTable('kernels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('label', 'text', notNull)
    .addColumn('version', 'text', notNull)
    .addColumn('kvm', 'integer', notNull)
    .addColumn('xen', 'integer', notNull)
    .addColumn('architecture', 'text', notNull)
    .addColumn('pvops', 'integer', notNull)
    .addColumn('deprecated', 'integer', notNull)
    .addColumn('built', 'text', notNull)
    .addColumn('sort', 'integer', notNull)
    .execute();

  await withSerialKey(s.createTable('images'), kind, 'num')
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'integer')
    .addColumn('label', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .addColumn('created_by', 'text', notNull)
    .addColumn('deprecated', 'integer', notNull)
    .addColumn('is_public', 'integer', notNull)
    .addColumn('size', 'integer', notNull)
    .addColumn('type', 'text', notNull)
    .addColumn('expiry', 'text')
    .addColumn('eol', 'text')
    .addColumn('vendor', 'text')
    .addColumn('status', 'text', notNull)
    .addColumn('sort', 'integer', notNull)
    .execute();
  await s.createIndex('images_account').on('images').columns(['account_id', 'num']).execute();
}
