import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { plainName } from '../../dns/names.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../account/principal.ts';
import { databaseZoneSource } from '../domains/zone-source.ts';
import { recordEvent } from '../events/event.service.ts';
import type { EventAction } from '../events/event-kinds.ts';
import type { NodeRow } from '../nodes/node.repository.ts';
import { nodeEntity } from '../nodes/node-access.ts';
import { assertForwardDns } from './forward-dns.ts';
import { type IpAddressRow, updateAddressRdns } from './ip-address.repository.ts';
import type { IpAddress } from './ip-address.schema.ts';
import { type HolderLabels, ipRowToIpAddress } from './ip-address.service.ts';
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

/** The node's own label, for an address it holds. */
function labelOf(node: NodeRow): HolderLabels {
  return new Map([[node.id, node.label]]);
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
  return ipRowToIpAddress(row, ctx.config.hostname, labelOf(node));
}

/**
 * The reverse DNS name to give one of the node's public addresses, checked before the caller opens
 * its transaction (the check asks DNS over the network; no row lock may wait on it): undefined
 * changes nothing, null gives a public IPv4 address its default name back, and a name is taken in
 * lower case without the root's trailing dot, only when forward DNS already points it at the address.
 */
export async function checkedRdns(
  ctx: Context,
  row: IpAddressRow,
  rdns: string | null | undefined,
): Promise<string | null | undefined> {
  if (row.public !== 1) throw fail.badRequest('Only public addresses have reverse DNS', 'rdns');
  if (rdns === undefined || rdns === null) return rdns;
  const name = plainName(rdns);
  await assertForwardDns(ctx.config, databaseZoneSource(ctx), row.address, name);
  return name;
}

/** Sets the reverse DNS name of the address, one that `checkedRdns` answered for the same address. */
export async function setRdns(
  db: Kysely<Database>,
  ctx: Context,
  actor: Actor,
  node: NodeRow,
  row: IpAddressRow,
  rdns: string | null | undefined,
): Promise<IpAddress> {
  if (rdns === undefined) return ipRowToIpAddress(row, ctx.config.hostname, labelOf(node));
  const updated = await updateAddressRdns(db, row, rdns);
  await ipEvent(db, ctx, actor, node, 'ipaddress_update', updated);
  return ipRowToIpAddress(updated, ctx.config.hostname, labelOf(node));
}
