import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { DomainSlaveZoneTable } from './domain.table.ts';

export type SlaveZoneRow = Selectable<DomainSlaveZoneTable>;

export function findSlaveZone(db: Kysely<Database>, domainId: number): Promise<SlaveZoneRow | undefined> {
  return db.selectFrom('domain_slave_zones').selectAll().where('domain_id', '=', domainId).executeTakeFirst();
}

/** Writes what a check of the masters found, over the row of the check before (if any). */
export async function putSlaveZone(
  db: Kysely<Database>,
  key: { domain_id: number; account_id: number },
  values: Updateable<DomainSlaveZoneTable> & { last_attempt: string },
): Promise<void> {
  await db
    .insertInto('domain_slave_zones')
    .values({ ...key, ...values })
    .onConflict((oc) => oc.column('domain_id').doUpdateSet(values))
    .execute();
}
