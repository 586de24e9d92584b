import { sql } from 'kysely';
import type { DbKind } from '../database.ts';
import { bigint, type MigrationDb, notNull, withSerialKey } from './schema-helpers.ts';

/**
 * DNS domains with their records, and the zone file last rendered for each. A domain name is
 * unique across the installation, whatever its account: the index is on its lower-cased name.
 */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  const s = db.schema;
  await withSerialKey(s.createTable('domains'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('domain', 'text', notNull)
    .addColumn('type', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('description', 'text', notNull)
    .addColumn('domain_group', 'text', notNull)
    .addColumn('soa_email', 'text', notNull)
    .addColumn('master_ips', 'text', notNull)
    .addColumn('axfr_ips', 'text', notNull)
    .addColumn('expire_sec', 'integer', notNull)
    .addColumn('refresh_sec', 'integer', notNull)
    .addColumn('retry_sec', 'integer', notNull)
    .addColumn('ttl_sec', 'integer', notNull)
    /** The SOA serial: raised in the transaction of every change of the domain or its records. */
    .addColumn('serial', bigint(kind), notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await s.createIndex('domains_name').unique().on('domains').expression(sql`lower(domain)`).execute();
  await s.createIndex('domains_account').on('domains').columns(['account_id', 'id']).execute();

  await withSerialKey(s.createTable('domain_records'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('domain_id', 'integer', (c) => c.notNull().references('domains.id').onDelete('cascade'))
    .addColumn('type', 'text', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('target', 'text', notNull)
    .addColumn('priority', 'integer', notNull)
    .addColumn('weight', 'integer', notNull)
    .addColumn('port', 'integer', notNull)
    .addColumn('service', 'text')
    .addColumn('protocol', 'text')
    .addColumn('tag', 'text')
    .addColumn('ttl_sec', 'integer', notNull)
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await s.createIndex('domain_records_domain').on('domain_records').columns(['domain_id', 'id']).execute();

  await s
    .createTable('domain_zone_files')
    .addColumn('domain_id', 'integer', (c) => c.primaryKey().references('domains.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', notNull)
    .addColumn('serial', bigint(kind), notNull)
    /** JSON array of the zone file's lines. */
    .addColumn('lines', 'text', notNull)
    .addColumn('rendered', 'text', notNull)
    .execute();
}
