import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../../../db/database.ts';
import type { FilterSpec } from '../../../db/filter.ts';
import { type Page, type PageRequest, paginate } from '../../../db/paginate.ts';
import type { ManagedIssueTable } from './issue.table.ts';

export type IssueRow = Selectable<ManagedIssueTable>;

const FILTER: FilterSpec = {
  fields: {},
  defaultOrder: { column: 'managed_issues.id', direction: 'asc' },
  tiebreak: 'managed_issues.id',
};

/** The account's open issues. */
export function listOpenIssues(db: Kysely<Database>, accountId: number, request: PageRequest): Promise<Page<IssueRow>> {
  const query = db
    .selectFrom('managed_issues')
    .selectAll('managed_issues')
    .where('managed_issues.account_id', '=', accountId)
    .where('managed_issues.closed', 'is', null);
  return paginate(query, request, FILTER);
}

/** One of the account's issues, open or closed. */
export function findIssue(db: Kysely<Database>, accountId: number, id: number): Promise<IssueRow | undefined> {
  return db.selectFrom('managed_issues').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function findOpenIssuesOf(db: Kysely<Database>, serviceId: number): Promise<IssueRow[]> {
  return db
    .selectFrom('managed_issues')
    .selectAll()
    .where('service_id', '=', serviceId)
    .where('closed', 'is', null)
    .orderBy('id')
    .execute();
}

export function insertIssue(db: Kysely<Database>, values: Insertable<ManagedIssueTable>): Promise<IssueRow> {
  return db.insertInto('managed_issues').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function closeIssueRows(db: Kysely<Database>, ids: readonly number[], closed: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('managed_issues').set({ closed }).where('id', 'in', ids).execute();
}
