import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { DomainZoneFileTable } from './domain.table.ts';

export type ZoneFileRow = Selectable<DomainZoneFileTable>;

export function findZoneFile(db: Kysely<Database>, accountId: number, domainId: number): Promise<ZoneFileRow | undefined> {
  return db
    .selectFrom('domain_zone_files')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('domain_id', '=', domainId)
    .executeTakeFirst();
}

/** Stores a domain's rendered zone in place of the one before. */
export async function putZoneFile(db: Kysely<Database>, values: Insertable<DomainZoneFileTable>): Promise<void> {
  await db
    .insertInto('domain_zone_files')
    .values(values)
    .onConflict((oc) =>
      oc.column('domain_id').doUpdateSet({ serial: values.serial, lines: values.lines, rendered: values.rendered }),
    )
    .execute();
}
