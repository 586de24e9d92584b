import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../account/principal.ts';
import { recordEvent } from '../events/event.service.ts';
import type { EventAction } from '../events/event-kinds.ts';
import type { NodeRow } from '../nodes/node.repository.ts';
import { nodeEntity } from '../nodes/node-access.ts';
import { type IpAddressRow, updateAddressRdns } from './ip-address.repository.ts';
import type { IpAddress } from './ip-address.schema.ts';
import { ipRowToIpAddress } from './ip-address.service.ts';
import { allocateNodeIpv4 } from './ip-allowance.service.ts';

/*
 * What the node's address routes and the networking address routes both do to an address, in the
 * caller's transaction, on a node it holds for writing (`nodeFor` / `nodeNamedIn` with read_write).
 */

export async function ipEvent(
  db: Kysely<Database>,
  ctx: Context,
  actor: Actor,
  node: NodeRow,
  action: EventAction,
  row: IpAddressRow,
): Promise<void> {
  await recordEvent(db, ctx, actor, { action, entity: nodeEntity(node), message: row.address });
}

/** Adds an IPv4 address to the node: a public one within its allowance, or its one private address. */
export async function addIpv4(
  db: Kysely<Database>,
  ctx: Context,
  actor: Actor,
  node: NodeRow,
  isPublic: boolean,
): Promise<IpAddress> {
  const region = ctx.catalog.region(node.region);
  if (!region) throw fail.badRequest(`The node's region ${node.region} is no longer offered`);
  const row = await allocateNodeIpv4(db, ctx, { accountId: node.account_id, nodeId: node.id, region, public: isPublic });
  await ipEvent(db, ctx, actor, node, 'node_addip', row);
  return ipRowToIpAddress(row);
}

/**
 * Sets the reverse DNS name of one of the node's public addresses; null gives a public IPv4 address
 * its default name back. A name is to be taken only when forward DNS already points it at the
 * address (Cumulo's own DNS records, the system resolver for other names); that check belongs
 * here, for both routes, and comes with the DNS domains.
 */
export async function setRdns(
  db: Kysely<Database>,
  ctx: Context,
  actor: Actor,
  node: NodeRow,
  row: IpAddressRow,
  rdns: string | null | undefined,
): Promise<IpAddress> {
  if (row.public !== 1) throw fail.badRequest('Only public addresses have reverse DNS', 'rdns');
  if (rdns === undefined) return ipRowToIpAddress(row);
  const updated = await updateAddressRdns(db, row, rdns);
  await ipEvent(db, ctx, actor, node, 'ipaddress_update', updated);
  return ipRowToIpAddress(updated);
}
