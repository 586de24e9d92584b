import type { DbKind } from '../database.ts';
import { type MigrationDb, notNull, withSerialKey } from './schema-helpers.ts';

/** Managed services (what the probes watch) and the issues their failures open. */
export async function up(db: MigrationDb, kind: DbKind): Promise<void> {
  const s = db.schema;
  await withSerialKey(s.createTable('managed_services'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('label', 'text', notNull)
    .addColumn('service_type', 'text', notNull)
    .addColumn('address', 'text', notNull)
    .addColumn('timeout', 'integer', notNull)
    .addColumn('body', 'text')
    .addColumn('consultation_group', 'text', notNull)
    .addColumn('notes', 'text')
    .addColumn('region', 'text')
    /** JSON array of managed credential ids, in the order given. */
    .addColumn('credentials', 'text', notNull)
    .addColumn('status', 'text', notNull)
    /** Bumped by every change a probe depends on, so a probe of the old settings is not applied. */
    .addColumn('probe_epoch', 'integer', notNull)
    .addColumn('last_probed', 'text')
    /** Why the last probe failed; null after one that succeeded. */
    .addColumn('last_problem', 'text')
    .addColumn('created', 'text', notNull)
    .addColumn('updated', 'text', notNull)
    .execute();
  await s.createIndex('managed_services_account').on('managed_services').columns(['account_id', 'id']).execute();

  await withSerialKey(s.createTable('managed_issues'), kind)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('service_id', 'integer', notNull)
    /** The ticket's summary. */
    .addColumn('label', 'text', notNull)
    .addColumn('created', 'text', notNull)
    /** When the service recovered (or stopped being watched); null while the issue is open. */
    .addColumn('closed', 'text')
    .execute();
  await s.createIndex('managed_issues_account').on('managed_issues').columns(['account_id', 'closed', 'id']).execute();
  await s.createIndex('managed_issues_service').on('managed_issues').columns(['service_id', 'closed']).execute();
}
