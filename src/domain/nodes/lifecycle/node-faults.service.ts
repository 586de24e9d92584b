import type { Kysely } from 'kysely';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { ApiError, fail } from '../../../errors.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { operatorIn } from '../../account/principal.ts';
import { findNodeAnywhere, type NodeRow, updateNodeRow } from '../node.repository.ts';
import { chooseBootConfig, issueBoot } from './node-lifecycle.service.ts';
import { watchdogDecision } from './node-watchdog.ts';

/**
 * Platform faults, with no user action: what the operator injects (CLI `cumulo fault ...`, later
 * the admin API) so the behaviour they trigger can be tested.
 */

/** A node of any account, for the operator: 404 when there is none. */
export async function existingNode(db: Context['db'], nodeId: number): Promise<NodeRow> {
  const node = await findNodeAnywhere(db, nodeId);
  if (!node) throw fail.notFound(`No node with id ${nodeId}`);
  return node;
}

export interface PowerOffOutcome {
  /** Whether the shutdown watchdog issued a boot job. */
  watchdogBoot: boolean;
}

/**
 * A running node powers off without a shutdown job being responsible. With `watchdog_enabled`, the
 * watchdog issues a boot job (event lassie_reboot) into the config the boot rules choose, unless it
 * has given up (more than five boots within fifteen minutes of service time) or no config can be chosen.
 */
export async function powerOffUnexpectedly(ctx: Context, nodeId: number): Promise<PowerOffOutcome> {
  return inTransaction(ctx.db, async (trx) => {
    const node = await existingNode(trx, nodeId);
    if (node.status !== 'running' || node.busy !== null) {
      throw fail.badRequest(
        `Node ${nodeId} is ${node.busy ? `busy (${node.busy})` : node.status}; only a running node can power off`,
      );
    }
    return nodePoweredOff(trx, ctx, node);
  });
}

/**
 * A running, settled node is found powered off (a fault, or its machine stopped by itself): it is
 * `offline`, and the watchdog boots it as powerOffUnexpectedly says. In the caller's transaction.
 */
export async function nodePoweredOff(trx: Kysely<Database>, ctx: Context, node: NodeRow): Promise<PowerOffOutcome> {
  const nowMs = ctx.clock.nowMs();
  const offline = await updateNodeRow(trx, node.account_id, node.id, { status: 'offline', updated: toTimestamp(nowMs) });
  if (offline.watchdog_enabled !== 1) return { watchdogBoot: false };
  const decision = watchdogDecision(JSON.parse(offline.watchdog_boots) as number[], nowMs);
  if (!decision.boot) return { watchdogBoot: false };
  try {
    const config = await chooseBootConfig(trx, offline, null);
    await issueBoot(trx, ctx, operatorIn(node.account_id), offline, config, {
      action: 'lassie_reboot',
      values: { watchdog_boots: JSON.stringify(decision.boots) },
    });
  } catch (err) {
    // No config to choose, or no memory left for it: the node stays offline.
    if (err instanceof ApiError) return { watchdogBoot: false };
    throw err;
  }
  return { watchdogBoot: true };
}

/** Platform maintenance takes the node down: `stopped`, whatever it was doing; it is booted again by the user. */
export async function enterMaintenance(ctx: Context, nodeId: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const node = await existingNode(trx, nodeId);
    await updateNodeRow(trx, node.account_id, node.id, { status: 'stopped', updated: toTimestamp(ctx.clock.nowMs()) });
  });
}
