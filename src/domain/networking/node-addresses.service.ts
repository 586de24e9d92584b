import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import type { RegionDataT } from '../catalog/catalog.ts';
import {
  deleteAddressesOfNode,
  findAddressesOfNodes,
  findAddressTextsOfNodes,
  type IpAddressRow,
} from './ip-address.repository.ts';
import { canonicalAddress } from './ip-address.service.ts';
import { deleteSharesOfNode } from './ip-share.repository.ts';
import { allocateAddresses, type PoolName } from './ipam.ts';
import { deleteRangesOfNode } from './ipv6-block.repository.ts';
import { ensureVlan } from './vlan.repository.ts';

/*
 * What the nodes group asks of networking: the addresses and VLANs of its nodes, in the caller's
 * transaction. Networking owns the address and VLAN tables; nodes never read or write them.
 */

export interface NodeRef {
  accountId: number;
  nodeId: number;
}

/** One public IPv4 and a SLAAC IPv6 address for a new node, and a private IPv4 when asked for; returns the SLAAC address. */
export async function giveNodeAddresses(
  db: Kysely<Database>,
  ctx: Context,
  node: NodeRef,
  region: RegionDataT,
  privateIp: boolean,
): Promise<string> {
  const pools: PoolName[] = privateIp ? ['public-ipv4', 'slaac', 'private-ipv4'] : ['public-ipv4', 'slaac'];
  const [, slaac] = await allocateAddresses(db, ctx, { ...node, region }, pools);
  return (slaac as IpAddressRow).address;
}

/**
 * A node that moves to another region gives its addresses and IPv6 ranges back to the old region
 * (ending their shares) and gets new addresses there (a private IPv4 again if it had one; ranges are
 * the operator's to route again); the addresses shared with it stay behind. Returns the new SLAAC
 * address.
 */
export async function moveNodeAddresses(db: Kysely<Database>, ctx: Context, node: NodeRef, region: RegionDataT): Promise<string> {
  const hadPrivate = (await findAddressesOfNodes(db, node.accountId, [node.nodeId], 'ipv4')).some((a) => a.public === 0);
  await deleteSharesOfNode(db, node.accountId, node.nodeId);
  await releaseNodeAddresses(db, node);
  return giveNodeAddresses(db, ctx, node, region, hadPrivate);
}

/** A deleted node's addresses go back to their pools, and the IPv6 ranges routed to it to the region's prefix. */
export async function releaseNodeAddresses(db: Kysely<Database>, node: NodeRef): Promise<void> {
  await deleteAddressesOfNode(db, node.accountId, node.nodeId);
  await deleteRangesOfNode(db, node.accountId, node.nodeId);
}

/** The addresses of some nodes, public first, then in the order they were given. */
export function addressesOfNodes(
  db: Kysely<Database>,
  accountId: number,
  nodeIds: readonly number[],
  type?: 'ipv4' | 'ipv6',
): Promise<IpAddressRow[]> {
  return findAddressesOfNodes(db, accountId, nodeIds, type);
}

/** Just the node and address of each, in the same order: what a page of node objects shows. */
export function addressTextsOfNodes(
  db: Kysely<Database>,
  accountId: number,
  nodeIds: readonly number[],
  type?: 'ipv4' | 'ipv6',
): Promise<{ node_id: number | null; address: string }[]> {
  return findAddressTextsOfNodes(db, accountId, nodeIds, type);
}

/** `text` as the node's own address is stored (canonical form), or null when the node holds no such address. */
export async function addressOfNode(db: Kysely<Database>, node: NodeRef, text: string): Promise<string | null> {
  const address = canonicalAddress(text);
  if (address === null) return null;
  const held = await findAddressTextsOfNodes(db, node.accountId, [node.nodeId]);
  return held.some((a) => a.address === address) ? address : null;
}

/** Makes sure the account has a VLAN of this label in the region for an interface to attach to. */
export function attachVlan(
  db: Kysely<Database>,
  vlan: { accountId: number; region: string; label: string; created: string },
): Promise<void> {
  return ensureVlan(db, vlan);
}
