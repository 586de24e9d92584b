import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/database.ts';

/** Public IPv4 addresses a node may hold while the operator has set nothing: the one it is created with. */
export const DEFAULT_PUBLIC_IPV4 = 1;

/**
 * The node's public IPv4 allowance, its row written (with the default when missing) so that it
 * stays locked until the caller's transaction ends: of two concurrent allocations for one node, the
 * second counts the node's addresses only after the first has committed.
 */
export async function lockIpAllowance(db: Kysely<Database>, accountId: number, nodeId: number): Promise<number> {
  const row = await db
    .insertInto('ip_allowances')
    .values({ node_id: nodeId, account_id: accountId, public_ipv4: DEFAULT_PUBLIC_IPV4 })
    .onConflict((oc) => oc.column('node_id').doUpdateSet({ public_ipv4: sql<number>`ip_allowances.public_ipv4` }))
    .returning('public_ipv4')
    .executeTakeFirstOrThrow();
  return row.public_ipv4;
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
