import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { IpAddressRow } from './ip-address.repository.ts';

/** The addresses shared with a node, as their holders' address rows, by address. */
export function findSharedWithNode(db: Kysely<Database>, accountId: number, nodeId: number): Promise<IpAddressRow[]> {
  return db
    .selectFrom('ip_shares')
    .innerJoin('ip_addresses', (j) =>
      j.onRef('ip_addresses.region', '=', 'ip_shares.region').onRef('ip_addresses.address', '=', 'ip_shares.address'),
    )
    .selectAll('ip_addresses')
    .where('ip_shares.account_id', '=', accountId)
    .where('ip_shares.node_id', '=', nodeId)
    .orderBy('ip_addresses.address')
    .execute();
}

/** Makes `addresses` (of `region`) the whole list of addresses shared with the node. */
export async function replaceSharesOfNode(
  db: Kysely<Database>,
  share: { accountId: number; nodeId: number; region: string; created: string },
  addresses: readonly string[],
): Promise<void> {
  await deleteSharesOfNode(db, share.accountId, share.nodeId);
  if (addresses.length === 0) return;
  await db
    .insertInto('ip_shares')
    .values(
      addresses.map((address) => ({
        region: share.region,
        address,
        account_id: share.accountId,
        node_id: share.nodeId,
        created: share.created,
      })),
    )
    .execute();
}

/** Ends every share of these addresses (they moved to another node). */
export async function deleteSharesOfAddresses(db: Kysely<Database>, region: string, addresses: readonly string[]): Promise<void> {
  if (addresses.length === 0) return;
  await db
    .deleteFrom('ip_shares')
    .where('region', '=', region)
    .where('address', 'in', [...addresses])
    .execute();
}

/** Ends every share a node holds (it leaves the region the addresses are in). */
export async function deleteSharesOfNode(db: Kysely<Database>, accountId: number, nodeId: number): Promise<void> {
  await db.deleteFrom('ip_shares').where('account_id', '=', accountId).where('node_id', '=', nodeId).execute();
}
