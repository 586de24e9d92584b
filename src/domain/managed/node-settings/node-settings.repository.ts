import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../../../db/database.ts';
import type { ManagedNodeSettingsTable } from './node-settings.table.ts';

export type NodeSettingsRow = Selectable<ManagedNodeSettingsTable>;

/** The changed settings among some of the account's nodes, keyed by node id (nodes with the defaults have none). */
export async function findNodeSettings(
  db: Kysely<Database>,
  accountId: number,
  nodeIds: readonly number[],
): Promise<Map<number, NodeSettingsRow>> {
  if (nodeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('managed_node_settings')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('node_id', 'in', [...nodeIds])
    .execute();
  return new Map(rows.map((r) => [r.node_id, r]));
}

/** Writes a node's settings whole, whether it had a row or not. */
export async function putNodeSettings(db: Kysely<Database>, values: Insertable<ManagedNodeSettingsTable>): Promise<void> {
  const { node_id: _key, account_id: _account, ...changes } = values;
  await db
    .insertInto('managed_node_settings')
    .values(values)
    .onConflict((oc) => oc.column('node_id').doUpdateSet(changes))
    .execute();
}
