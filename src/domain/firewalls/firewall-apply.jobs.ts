import type { Kysely } from 'kysely';
import type { Context } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { ApiError } from '../../errors.ts';
import type { JobHandler } from '../../jobs/handler.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { machineKey } from '../nodes/compute/compute-keys.ts';
import { nodesByHost } from '../nodes/compute/node-hosts.service.ts';
import { getNodeNftables } from './node-nftables.service.ts';

const APPLY_JOB = 'firewall.apply';

/**
 * With real nodes, what filters a node's traffic follows every firewall change: a job queued in the
 * change's transaction loads each node's ruleset as it is when the job runs (so later changes are
 * never undone by an earlier job that ran late).
 */
export async function applyFirewallsLater(
  db: Kysely<Database>,
  ctx: Context,
  accountId: number,
  nodeIds: readonly number[],
): Promise<void> {
  if (ctx.compute === null || nodeIds.length === 0) return;
  // A node's machine is on its host: that host's agent loads its ruleset.
  for (const [host, ids] of await nodesByHost(db, [...new Set(nodeIds)])) {
    await enqueueJob(db, ctx.clock, { kind: APPLY_JOB, accountId, payload: { nodeIds: ids }, host });
  }
  ctx.wakeWorker();
}

const apply: JobHandler = {
  kind: APPLY_JOB,
  parallel: true,
  async prepare({ ctx, payload }) {
    const compute = ctx.compute;
    if (compute === null) return;
    for (const nodeId of payload.nodeIds as number[]) {
      try {
        const { ruleset } = await getNodeNftables(ctx, nodeId);
        await compute.applyFirewall(machineKey(nodeId), ruleset);
      } catch (err) {
        // A node deleted since has no machine left to filter.
        if (!(err instanceof ApiError && err.code === 'not_found')) throw err;
      }
    }
  },
  async run() {},
};

export const firewallJobs: readonly JobHandler[] = [apply];
