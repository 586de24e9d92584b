import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { fail } from '../../errors.ts';
import { type AccountScope, type Actor, actorOf, type Principal, scopeOf } from '../account/principal.ts';
import type { NodeRow } from '../nodes/node.repository.ts';
import { nodeFor, nodeNamedIn } from '../nodes/node-access.ts';
import { lockAddressHolders, namedIpv4 } from './address-holders.ts';
import { findAddressesOfNodes, type IpAddressRow, moveAddressToNode } from './ip-address.repository.ts';
import { ipEvent } from './ip-address-writes.ts';
import { deleteSharesOfAddresses } from './ip-share.repository.ts';
import type { AssignIps } from './ips.schema.ts';

/** A node whose region is about to change cannot take part: its addresses are about to be replaced. */
function assertStaysInRegion(node: NodeRow, field?: string): void {
  if (node.status === 'migrating') {
    throw fail.badRequest(`Node ${node.id} is migrating to another region; assign addresses when it has finished`, field);
  }
}

/** The nodes an assignment names, each in the region and writable by the caller. */
async function targetNodes(db: Kysely<Database>, scope: AccountScope, body: AssignIps): Promise<Map<number, NodeRow>> {
  const nodes = new Map<number, NodeRow>();
  for (const [i, { node_id: id }] of body.assignments.entries()) {
    if (nodes.has(id)) continue;
    const field = `assignments[${i}].node_id`;
    const node = await nodeNamedIn(db, scope, id, 'read_write', field);
    if (node.region !== body.region) throw fail.badRequest(`Node ${id} is in ${node.region}, not ${body.region}`, field);
    assertStaysInRegion(node, field);
    nodes.set(id, node);
  }
  return nodes;
}

/** Every node that gives or takes an address keeps one public IPv4 address at least and one private at most. */
async function assertAddressRules(db: Kysely<Database>, accountId: number, nodeIds: readonly number[]): Promise<void> {
  const held = await findAddressesOfNodes(db, accountId, nodeIds, 'ipv4');
  for (const id of nodeIds) {
    const mine = held.filter((a) => a.node_id === id);
    if (!mine.some((a) => a.public === 1)) {
      throw fail.badRequest(`After these assignments node ${id} would have no public IPv4 address`, 'assignments');
    }
    if (mine.filter((a) => a.public === 0).length > 1) {
      throw fail.badRequest(`After these assignments node ${id} would have more than one private IPv4 address`, 'assignments');
    }
  }
}

async function recordMoves(
  db: Kysely<Database>,
  ctx: Context,
  actor: Actor,
  moves: readonly { row: IpAddressRow; from: NodeRow; to: NodeRow }[],
): Promise<void> {
  for (const { row, from, to } of moves) {
    await ipEvent(db, ctx, actor, from, 'node_deleteip', row);
    await ipEvent(db, ctx, actor, to, 'node_addip', row);
  }
}

/**
 * Moves IPv4 addresses between nodes of one region, all at once: every address and node must be
 * the caller's to write, and afterwards every node involved holds at least one public and at most
 * one private IPv4 address, or nothing moves. A moved address stops being shared.
 */
export async function assignIps(ctx: Context, principal: Principal, body: AssignIps): Promise<void> {
  if (!ctx.catalog.region(body.region)) throw fail.badRequest(`Region ${body.region} does not exist`, 'region');
  const named = namedIpv4(body.assignments.map((a, i) => ({ text: a.address, field: `assignments[${i}].address` })));
  const scope = scopeOf(principal);
  await inTransaction(ctx.db, async (trx) => {
    const targetIds = body.assignments.map((a) => a.node_id);
    const rows = await lockAddressHolders(trx, scope, body.region, named, targetIds);
    const targets = await targetNodes(trx, scope, body);
    const involved = new Map(targets);
    const moves: { row: IpAddressRow; from: NodeRow; to: NodeRow }[] = [];
    for (const [i, { address }] of named.entries()) {
      const row = rows.get(address);
      const to = targets.get(body.assignments[i]?.node_id ?? -1);
      if (!row || row.node_id === null || !to) throw fail.internal();
      const from = involved.get(row.node_id) ?? (await nodeFor(trx, scope, row.node_id, 'read_write'));
      assertStaysInRegion(from);
      involved.set(from.id, from);
      if (from.id !== to.id) moves.push({ row, from, to });
    }
    for (const { row, to } of moves) await moveAddressToNode(trx, row, to.id);
    await deleteSharesOfAddresses(
      trx,
      body.region,
      moves.map((m) => m.row.address),
    );
    await assertAddressRules(trx, principal.accountId, [...involved.keys()]);
    await recordMoves(trx, ctx, actorOf(principal), moves);
  });
}
