import type { DbKind } from '../database.ts';
import { bigint, type MigrationDb, notNull } from './schema-helpers.ts';

/**
 * The copy a slave domain holds of its master's zone, from the last transfer, and how its checks of
 * the masters went. The copy is served until `expires`: the last good check plus the zone's expire time.
 */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  await db.schema
    .createTable('domain_slave_zones')
    .addColumn('domain_id', 'integer', (c) => c.primaryKey().references('domains.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', notNull)
    /** The domain name the copy is of: a renamed domain's copy is not its zone. */
    .addColumn('origin', 'text')
    .addColumn('serial', bigint(kind))
    /** JSON array of the transferred records, the SOA first (the zone model's form). */
    .addColumn('records', 'text')
    /** `host:port` of the master the copy came from. */
    .addColumn('master', 'text')
    .addColumn('transferred', 'text')
    .addColumn('checked', 'text')
    .addColumn('expires', 'text')
    .addColumn('last_attempt', 'text', notNull)
    .addColumn('last_error', 'text')
    .execute();
}
