import type { Kysely, Updateable } from 'kysely';
import type { Database } from '../../db/database.ts';
import { lockRows } from '../../db/row-locks.ts';
import { fail } from '../../errors.ts';
import { entityFor } from '../account/entity-access.ts';
import type { Permission } from '../account/grants.ts';
import type { AccountScope } from '../account/principal.ts';
import type { EntityRef } from '../events/event.service.ts';
import { claimNode, findNodeAnywhere, type NodeRow } from './node.repository.ts';
import type { NodeTable } from './node.table.ts';
import { nodeKind } from './node-kind.ts';

/**
 * The node a request acts on: another account's node, or one a restricted user holds no grant on,
 * is not found (404); a read_only grant where the operation writes is forbidden (403).
 * Every operation on a node or on what hangs off it (disks, configs, addresses) starts here.
 */
export function nodeFor(db: Kysely<Database>, scope: AccountScope, nodeId: number, need: Permission): Promise<NodeRow> {
  return entityFor(db, nodeKind, scope, nodeId, need, { what: 'the node', missing: () => fail.notFound() });
}

/**
 * A node a request names in its body (a restore or clone target, a backup's node): as `nodeFor`,
 * but one the caller cannot see is a 400 naming the field, as for any other bad value in the body.
 */
export function nodeNamedIn(
  db: Kysely<Database>,
  scope: AccountScope,
  nodeId: number,
  need: Permission,
  field: string,
  reason = `Node ${nodeId} does not exist or is not available to you`,
): Promise<NodeRow> {
  return entityFor(db, nodeKind, scope, nodeId, need, {
    what: `node ${nodeId}`,
    missing: () => fail.badRequest(reason, field),
  });
}

/**
 * A node of any account that the operator names in a request body, locked when in a transaction
 * (as `nodeFor`); a 400 naming `field` when there is none.
 */
export async function anyNodeNamedIn(db: Kysely<Database>, nodeId: number, field: string): Promise<NodeRow> {
  await lockRows(db, 'nodes', 'id', [nodeId]);
  const node = await findNodeAnywhere(db, nodeId);
  if (!node) throw fail.badRequest(`No node with id ${nodeId}`, field);
  return node;
}

/**
 * The live service's exact words: SDKs retry a 400 whose reason is exactly this (the Go SDK
 * compares the whole string), so no detail of what is under way may be added.
 */
export const NODE_BUSY = 'Node busy.';

/** Refuses an operation that needs a settled node while another one is under way. */
export function assertSettled(node: NodeRow): void {
  if (node.busy !== null) throw fail.badRequest(NODE_BUSY);
}

export function nodeEntity(node: Pick<NodeRow, 'id' | 'label'>): EntityRef {
  return { id: node.id, type: 'node', label: node.label, url: `/v4/node/instances/${node.id}` };
}

/**
 * Marks a settled node busy with an operation (and whatever else the operation changes at once,
 * such as its status), or refuses: the check and the claim are one conditional update, so of two
 * concurrent requests only one gets the node.
 */
export async function claimSettledNode(
  db: Kysely<Database>,
  node: NodeRow,
  values: Updateable<NodeTable> & { busy: string },
): Promise<void> {
  assertSettled(node);
  if (!(await claimNode(db, node.account_id, node.id, values))) {
    throw fail.badRequest(NODE_BUSY);
  }
}
