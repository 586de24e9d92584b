import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { mapPage, type Page, type PageRequest } from '../../db/paginate.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { type AccountScope, actorOf, type Principal, scopeOf } from '../account/principal.ts';
import type { NodeRow } from '../nodes/node.repository.ts';
import { nodeFor, nodeNamedIn } from '../nodes/node-access.ts';
import { findNodeAddress, findVisibleAddress, type IpAddressRow, listPublicAddresses } from './ip-address.repository.ts';
import type { IpAddress } from './ip-address.schema.ts';
import { canonicalAddress, holderLabels, ipRowToIpAddress } from './ip-address.service.ts';
import { addIpv4, checkedRdns, setRdns } from './ip-address-writes.ts';
import type { AllocateAccountIp } from './ips.schema.ts';

/*
 * The account's addresses (`/networking/ips`): the same rows, rules and events as the node's own
 * address routes (node-ip.service.ts), reached by address instead of through the node.
 */

/** The account's addresses without private ones; a restricted user sees those of nodes it holds a grant on. */
export async function getIps(ctx: Context, scope: AccountScope, request: PageRequest): Promise<Page<IpAddress>> {
  const page = await listPublicAddresses(ctx.db, scope, request);
  const labels = await holderLabels(ctx.db, ctx, scope.accountId, page.data);
  return mapPage(page, (row) => ipRowToIpAddress(row, ctx.config.hostname, labels));
}

async function visibleAddress(db: Kysely<Database>, scope: AccountScope, text: string): Promise<IpAddressRow> {
  const address = canonicalAddress(text);
  const row = address === null ? undefined : await findVisibleAddress(db, scope, address);
  if (!row || row.node_id === null) throw fail.notFound();
  return row;
}

/** Any address of the account, private ones included; another account's, or one not known, is not found. */
export async function getIp(ctx: Context, scope: AccountScope, address: string): Promise<IpAddress> {
  const row = await visibleAddress(ctx.db, scope, address);
  return ipRowToIpAddress(row, ctx.config.hostname, await holderLabels(ctx.db, ctx, scope.accountId, [row]));
}

/** An IPv4 address for a node named in the body, by the rule of the node's own allocation. */
export async function allocateIp(ctx: Context, principal: Principal, body: AllocateAccountIp): Promise<IpAddress> {
  return inTransaction(ctx.db, async (trx) => {
    const node = await nodeNamedIn(trx, scopeOf(principal), body.node_id, 'read_write', 'node_id');
    return addIpv4(trx, ctx, actorOf(principal), node, body.public);
  });
}

/** The address to name and its node, which the caller needs read_write on (its lock, in a transaction). */
async function addressToName(
  db: Kysely<Database>,
  scope: AccountScope,
  address: string,
): Promise<{ node: NodeRow; row: IpAddressRow }> {
  const seen = await visibleAddress(db, scope, address);
  const node = await nodeFor(db, scope, seen.node_id ?? 0, 'read_write');
  // Read again after the node (locked, in a transaction): the address may have left it meanwhile.
  const row = await findNodeAddress(db, node.account_id, node.id, seen.address);
  if (!row) throw fail.notFound();
  return { node, row };
}

/** Sets an address's reverse DNS name, as the node's address route does; it needs read_write on the address's node. */
export async function updateIp(
  ctx: Context,
  principal: Principal,
  address: string,
  rdns: string | null | undefined,
): Promise<IpAddress> {
  const scope = scopeOf(principal);
  // Found and checked before the transaction (the check asks DNS), then found again in it.
  const name = await checkedRdns(ctx, (await addressToName(ctx.db, scope, address)).row, rdns);
  return inTransaction(ctx.db, async (trx) => {
    const { node, row } = await addressToName(trx, scope, address);
    return setRdns(trx, ctx, actorOf(principal), node, row, name);
  });
}
