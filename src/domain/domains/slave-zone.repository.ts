import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { DomainSlaveZoneTable } from './domain.table.ts';

export type SlaveZoneRow = Selectable<DomainSlaveZoneTable>;

export function findSlaveZone(db: Kysely<Database>, domainId: number): Promise<SlaveZoneRow | undefined> {
  return db.selectFrom('domain_slave_zones').selectAll().where('domain_id', '=', domainId).executeTakeFirst();
}

/** Why the last check of each of these slave domains' masters failed, by domain; none for those that succeeded. */
export async function findSlaveErrors(db: Kysely<Database>, accountId: number, domainIds: readonly number[]) {
  if (domainIds.length === 0) return new Map<number, string>();
  const rows = await db
    .selectFrom('domain_slave_zones')
    .select(['domain_id', 'last_error'])
    .where('account_id', '=', accountId)
    .where('domain_id', 'in', [...domainIds])
    .where('last_error', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [r.domain_id, r.last_error ?? '']));
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
