import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../db/database.ts';

/**
 * Counts a clone from the node as running if fewer than `max` are: the check and the count are one
 * conditional update, so concurrent requests cannot both take the last place (PostgreSQL re-reads
 * the row once the other transaction has committed; SQLite runs one writer at a time). False when
 * every place is taken.
 */
export async function takeCloneSlot(db: Kysely<Database>, accountId: number, nodeId: number, max: number): Promise<boolean> {
  const result = await db
    .updateTable('nodes')
    .set({ clones_running: sql<number>`clones_running + 1` })
    .where('account_id', '=', accountId)
    .where('id', '=', nodeId)
    .where('clones_running', '<', max)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A clone from the node has ended (finished or failed). */
export async function releaseCloneSlot(db: Kysely<Database>, accountId: number, nodeId: number): Promise<void> {
  await db
    .updateTable('nodes')
    .set({ clones_running: sql<number>`case when clones_running > 0 then clones_running - 1 else 0 end` })
    .where('account_id', '=', accountId)
    .where('id', '=', nodeId)
    .execute();
}
