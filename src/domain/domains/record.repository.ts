import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { countRows } from '../../db/count.ts';
import type { Database } from '../../db/database.ts';
import type { FilterSpec } from '../../db/filter.ts';
import { type Page, type PageRequest, paginate } from '../../db/paginate.ts';
import type { DomainRecordTable } from './domain.table.ts';

export type RecordRow = Selectable<DomainRecordTable>;

/** Records filter on the reference's `tag`, and on `type` and `name`. */
const FILTER: FilterSpec = {
  fields: {
    type: { column: 'domain_records.type', type: 'string' },
    // Names are stored in lower case.
    name: { column: 'domain_records.name', type: 'string', normalize: (v) => v.toLowerCase() },
    tag: { column: 'domain_records.tag', type: 'string' },
  },
  defaultOrder: { column: 'domain_records.id', direction: 'asc' },
  tiebreak: 'domain_records.id',
};

function recordsOf(db: Kysely<Database>, accountId: number, domainId: number) {
  return db
    .selectFrom('domain_records')
    .selectAll('domain_records')
    .where('domain_records.account_id', '=', accountId)
    .where('domain_records.domain_id', '=', domainId);
}

export function listRecords(
  db: Kysely<Database>,
  accountId: number,
  domainId: number,
  request: PageRequest,
): Promise<Page<RecordRow>> {
  return paginate(recordsOf(db, accountId, domainId), request, FILTER);
}

/** Every record of a domain, in id order. */
export function findAllRecords(db: Kysely<Database>, accountId: number, domainId: number): Promise<RecordRow[]> {
  return recordsOf(db, accountId, domainId).orderBy('domain_records.id').execute();
}

export function findRecord(
  db: Kysely<Database>,
  accountId: number,
  domainId: number,
  id: number,
): Promise<RecordRow | undefined> {
  return recordsOf(db, accountId, domainId).where('domain_records.id', '=', id).executeTakeFirst();
}

/** The domain's records named `name` (relative, lower case), but `exceptId`. */
export async function findRecordsNamed(
  db: Kysely<Database>,
  accountId: number,
  domainId: number,
  name: string,
  exceptId?: number,
): Promise<RecordRow[]> {
  let q = recordsOf(db, accountId, domainId).where('domain_records.name', '=', name);
  if (exceptId !== undefined) q = q.where('domain_records.id', '<>', exceptId);
  return q.execute();
}

/** How many records the domain has. */
export function countRecords(db: Kysely<Database>, accountId: number, domainId: number): Promise<number> {
  return countRows(db.selectFrom('domain_records').where('account_id', '=', accountId).where('domain_id', '=', domainId));
}

export function insertRecord(db: Kysely<Database>, values: Insertable<DomainRecordTable>): Promise<RecordRow> {
  return db.insertInto('domain_records').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function insertRecords(db: Kysely<Database>, values: Insertable<DomainRecordTable>[]): Promise<void> {
  // Several rows a statement, within every database's limit on bound values.
  for (let i = 0; i < values.length; i += 200) {
    await db
      .insertInto('domain_records')
      .values(values.slice(i, i + 200))
      .execute();
  }
}

export function updateRecordRow(
  db: Kysely<Database>,
  accountId: number,
  id: number,
  values: Updateable<DomainRecordTable>,
): Promise<RecordRow> {
  return db
    .updateTable('domain_records')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteRecordRow(db: Kysely<Database>, accountId: number, id: number): Promise<void> {
  await db.deleteFrom('domain_records').where('account_id', '=', accountId).where('id', '=', id).execute();
}
