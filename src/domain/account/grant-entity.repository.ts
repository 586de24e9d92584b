import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';

export interface GrantEntity {
  id: number;
  label: string;
}

/** Private images of the account (their API id is `private/<num>`), all or those among `ids`. */
export async function findImageEntities(
  db: Kysely<Database>,
  accountId: number,
  ids?: readonly number[],
): Promise<GrantEntity[]> {
  if (ids?.length === 0) return [];
  let q = db.selectFrom('images').select(['num as id', 'label']).where('account_id', '=', accountId).orderBy('num');
  if (ids) q = q.where('num', 'in', [...ids]);
  return q.execute();
}
