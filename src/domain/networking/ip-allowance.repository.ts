import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';

/** Public IPv4 addresses a node may hold while the operator has set nothing: the one it is created with. */
export const DEFAULT_PUBLIC_IPV4 = 1;

/** How many public IPv4 addresses the node may hold in all. */
export async function findIpAllowance(db: Kysely<Database>, accountId: number, nodeId: number): Promise<number> {
  const row = await db
    .selectFrom('ip_allowances')
    .select('public_ipv4')
    .where('account_id', '=', accountId)
    .where('node_id', '=', nodeId)
    .executeTakeFirst();
  return row?.public_ipv4 ?? DEFAULT_PUBLIC_IPV4;
}

export async function upsertIpAllowance(
  db: Kysely<Database>,
  accountId: number,
  nodeId: number,
  publicIpv4: number,
): Promise<number> {
  const row = await db
    .insertInto('ip_allowances')
    .values({ node_id: nodeId, account_id: accountId, public_ipv4: publicIpv4 })
    .onConflict((oc) => oc.column('node_id').doUpdateSet({ public_ipv4: publicIpv4 }))
    .returning('public_ipv4')
    .executeTakeFirstOrThrow();
  return row.public_ipv4;
}
