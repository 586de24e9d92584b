import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { type AccountScope, actorOf, type Principal, scopeOf } from '../account/principal.ts';
import type { NodeRow } from '../nodes/node.repository.ts';
import { nodeFor } from '../nodes/node-access.ts';
import { deleteAddress, findAddressesOfNodes, findNodeAddress, type IpAddressRow } from './ip-address.repository.ts';
import type { IpAddress, NodeIpAddress } from './ip-address.schema.ts';
import {
  canonicalAddress,
  holderLabels,
  ipRowToIpAddress,
  linkLocalAddress,
  publicIpv4,
  slaacAddress,
} from './ip-address.service.ts';
import { addIpv4, checkedRdns, ipEvent, setRdns } from './ip-address-writes.ts';
import { findSharedWithNode } from './ip-share.repository.ts';
import { ipv6BlockView } from './ipv6.service.ts';
import { findRangesOfNode } from './ipv6-block.repository.ts';
import type { AllocateIp, NodeIps } from './node-ip.schema.ts';

async function addressesOf(db: Kysely<Database>, node: NodeRow): Promise<IpAddressRow[]> {
  return findAddressesOfNodes(db, node.account_id, [node.id]);
}

function slaacOf(rows: readonly IpAddressRow[]): IpAddressRow {
  const slaac = rows.find((r) => r.type === 'ipv6');
  if (!slaac) throw fail.internal();
  return slaac;
}

/** A node's address as its own routes show it: held, by the node or (shared) by the node sharing it. */
function heldBy<T extends IpAddress>(view: T, nodeId: number): T & { node_id: number } {
  return { ...view, node_id: view.node_id ?? nodeId };
}

export async function getNodeIps(ctx: Context, scope: AccountScope, nodeId: number): Promise<NodeIps> {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  const rows = await addressesOf(ctx.db, node);
  const v4 = rows.filter((r) => r.type === 'ipv4');
  const slaac = slaacOf(rows);
  const ranges = await findRangesOfNode(ctx.db, node.account_id, node.id);
  const shared = await findSharedWithNode(ctx.db, node.account_id, node.id);
  const labels = await holderLabels(ctx.db, ctx, node.account_id, [...rows, ...shared]);
  const held = <T extends IpAddress>(view: T) => heldBy(view, node.id);
  return {
    ipv4: {
      public: v4.filter((r) => r.public === 1).map((r) => held(publicIpv4(r, ctx.config.hostname, labels))),
      private: v4.filter((r) => r.public === 0).map((r) => held(ipRowToIpAddress(r, ctx.config.hostname, labels))),
      shared: shared.map((r) => held(publicIpv4(r, ctx.config.hostname, labels))),
      // Reserving an address has no operation in this API, so no node holds a reserved one.
      reserved: [],
      // VPCs are not offered.
      vpc: [],
    },
    ipv6: {
      slaac: held(slaacAddress(slaac, labels)),
      link_local: held(linkLocalAddress(slaac, labels)),
      global: ranges.map(ipv6BlockView),
      vpc: [],
    },
  };
}

/** Adds an IPv4 address to the node: a public one within its allowance, or its one private address. */
export async function addNodeIp(ctx: Context, principal: Principal, nodeId: number, body: AllocateIp): Promise<NodeIpAddress> {
  return inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    return heldBy(await addIpv4(trx, ctx, actorOf(principal), node, body.public), node.id);
  });
}

/** One of the node's addresses, by its text in any valid form; the derived link-local address included. */
async function nodeAddress(
  db: Kysely<Database>,
  node: NodeRow,
  text: string,
): Promise<{ row: IpAddressRow; linkLocal: boolean }> {
  const address = canonicalAddress(text);
  if (address === null) throw fail.notFound();
  const row = await findNodeAddress(db, node.account_id, node.id, address);
  if (row) return { row, linkLocal: false };
  const slaac = (await addressesOf(db, node)).find((r) => r.type === 'ipv6');
  if (slaac && linkLocalAddress(slaac, new Map()).address === address) return { row: slaac, linkLocal: true };
  throw fail.notFound();
}

export async function getNodeIp(ctx: Context, scope: AccountScope, nodeId: number, address: string): Promise<NodeIpAddress> {
  const node = await nodeFor(ctx.db, scope, nodeId, 'read_only');
  const found = await nodeAddress(ctx.db, node, address);
  const labels = new Map([[node.id, node.label]]);
  return heldBy(
    found.linkLocal ? linkLocalAddress(found.row, labels) : ipRowToIpAddress(found.row, ctx.config.hostname, labels),
    nodeId,
  );
}

/** The node (read_write; locked, in a transaction) and its address whose reverse DNS name is to change. */
async function addressToName(
  db: Kysely<Database>,
  scope: AccountScope,
  nodeId: number,
  address: string,
): Promise<{ node: NodeRow; row: IpAddressRow }> {
  const node = await nodeFor(db, scope, nodeId, 'read_write');
  const found = await nodeAddress(db, node, address);
  if (found.linkLocal) throw fail.badRequest('Only public addresses have reverse DNS', 'rdns');
  return { node, row: found.row };
}

/** Sets the reverse DNS name of a public address; null gives a public IPv4 address its default back. */
export async function updateNodeIp(
  ctx: Context,
  principal: Principal,
  nodeId: number,
  address: string,
  rdns: string | null | undefined,
): Promise<NodeIpAddress> {
  const scope = scopeOf(principal);
  // Found and checked before the transaction (the check asks DNS), then found again in it.
  const name = await checkedRdns(ctx, (await addressToName(ctx.db, scope, nodeId, address)).row, rdns);
  return inTransaction(ctx.db, async (trx) => {
    const { node, row } = await addressToName(trx, scope, nodeId, address);
    return heldBy(await setRdns(trx, ctx, actorOf(principal), node, row, name), node.id);
  });
}

/** Gives an address back to its pool; the SLAAC address and the node's last public IPv4 address stay. */
export async function removeNodeIp(ctx: Context, principal: Principal, nodeId: number, address: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    const found = await nodeAddress(trx, node, address);
    const { row } = found;
    if (found.linkLocal || row.type !== 'ipv4') throw fail.badRequest('IPv6 SLAAC and link-local addresses cannot be removed');
    if (row.public === 1) {
      const publics = (await addressesOf(trx, node)).filter((r) => r.type === 'ipv4' && r.public === 1);
      if (publics.length <= 1) throw fail.badRequest('A node keeps at least one public IPv4 address');
    }
    await deleteAddress(trx, row);
    await ipEvent(trx, ctx, actorOf(principal), node, 'node_deleteip', row);
  });
}
