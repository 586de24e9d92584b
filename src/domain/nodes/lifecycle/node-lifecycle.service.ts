import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { type Actor, actorOf, type Principal, scopeOf } from '../../account/principal.ts';
import type { EventAction } from '../../events/event-kinds.ts';
import { assertMemoryFits } from '../compute/host-capacity.ts';
import { type ConfigRow, findConfigs } from '../configs/config.repository.ts';
import { configSecondary } from '../configs/config-entity.ts';
import type { NodeRow } from '../node.repository.ts';
import { assertSettled, claimSettledNode, nodeFor } from '../node-access.ts';
import { NODE_OPS, startNodeOperation } from '../node-operations.ts';

const POWERED_OFF = new Set(['offline', 'stopped']);

/**
 * The config a boot uses: the one named; else the node's only config; else, among several, the one
 * booted last. Several configs and none booted last (never booted, or that config was deleted) is
 * a 400, as is a node without any config.
 */
export async function chooseBootConfig(
  db: Kysely<Database>,
  node: NodeRow,
  configId: number | null | undefined,
): Promise<ConfigRow> {
  const configs = await findConfigs(db, node.account_id, node.id);
  if (configId !== undefined && configId !== null) {
    const named = configs.find((c) => c.id === configId);
    if (!named) throw fail.badRequest(`Config ${configId} is not a config of this node`, 'config_id');
    return named;
  }
  const [only] = configs;
  if (!only) throw fail.badRequest('The node has no config to boot from; create a config first', 'config_id');
  if (configs.length === 1) return only;
  const last = configs.find((c) => c.id === node.last_booted_config_id);
  if (last) return last;
  throw fail.badRequest('The node has several configs and none was booted last; name one with config_id', 'config_id');
}

/**
 * With real nodes, what an operation that takes a running node down (resize, migrate) needs to
 * bring it back: the config it boots with, chosen by the boot rules now (in the payload). A node
 * that was not running, or a simulated one, needs nothing.
 */
export async function bootConfigAfter(db: Kysely<Database>, ctx: Context, node: NodeRow): Promise<{ configId?: number }> {
  if (ctx.compute === null || node.status !== 'running') return {};
  return { configId: (await chooseBootConfig(db, node, undefined)).id };
}

/**
 * Boots a powered-off node with a config (in the caller's transaction): the node is `booting` until
 * the boot job makes it `running`. The watchdog boots through here too, with its own event action.
 */
export async function issueBoot(
  db: Kysely<Database>,
  ctx: Context,
  actor: Actor,
  node: NodeRow,
  config: ConfigRow,
  spec: { action: EventAction; values?: { watchdog_boots: string } },
): Promise<void> {
  await assertMemoryFits(db, ctx, { typeId: node.type, nodeId: node.id });
  await claimSettledNode(db, node, {
    busy: 'node_boot',
    status: 'booting',
    updated: toTimestamp(ctx.clock.nowMs()),
    ...spec.values,
  });
  await startNodeOperation(db, ctx, actor, {
    node,
    action: spec.action,
    kind: NODE_OPS.boot,
    payload: { configId: config.id },
    secondary: configSecondary(config),
  });
}

export async function bootNode(ctx: Context, principal: Principal, nodeId: number, configId?: number | null): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    assertSettled(node);
    if (!POWERED_OFF.has(node.status)) throw fail.badRequest(`The node is ${node.status}; only a powered-off node can be booted`);
    const chosen = await chooseBootConfig(trx, node, configId);
    await issueBoot(trx, ctx, actorOf(principal), node, chosen, { action: 'node_boot' });
  });
}

/** Reboots a running node, into the config named or the one the boot rules choose. */
export async function rebootNode(ctx: Context, principal: Principal, nodeId: number, configId?: number | null): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    assertSettled(node);
    if (node.status !== 'running') throw fail.badRequest(`The node is ${node.status}; only a running node can be rebooted`);
    const chosen = await chooseBootConfig(trx, node, configId);
    await claimSettledNode(trx, node, { busy: 'node_reboot', status: 'rebooting', updated: toTimestamp(ctx.clock.nowMs()) });
    await startNodeOperation(trx, ctx, actorOf(principal), {
      node,
      action: 'node_reboot',
      kind: NODE_OPS.reboot,
      payload: { configId: chosen.id },
      secondary: configSecondary(chosen),
    });
  });
}

/** Shuts a running node down; a node already powered off is left as it is. */
export async function shutdownNode(ctx: Context, principal: Principal, nodeId: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const node = await nodeFor(trx, scopeOf(principal), nodeId, 'read_write');
    assertSettled(node);
    if (POWERED_OFF.has(node.status)) return;
    await claimSettledNode(trx, node, {
      busy: 'node_shutdown',
      status: 'shutting_down',
      updated: toTimestamp(ctx.clock.nowMs()),
    });
    await startNodeOperation(trx, ctx, actorOf(principal), { node, action: 'node_shutdown', kind: NODE_OPS.shutdown });
  });
}
