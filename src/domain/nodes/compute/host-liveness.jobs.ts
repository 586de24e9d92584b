import type { Kysely } from 'kysely';
import { hostIsLive, hostsExist, listHosts } from '../../../compute/agents/host-registry.ts';
import type { Context } from '../../../context.ts';
import type { Database } from '../../../db/database.ts';
import type { JobContext, JobHandler } from '../../../jobs/handler.ts';
import { enqueueJob, releaseDedupeKey } from '../../../jobs/queue.ts';
import { toTimestamp } from '../../../time/timestamp.ts';
import { machineKey } from './compute-keys.ts';
import { findSettledHostNodes, setHostNodesStatus } from './node-host.repository.ts';

const WATCH_JOB = 'compute.hosts_watch';

/** How often the watcher looks at the agents' reports: a few times within the offline threshold. */
function watchEveryMs(ctx: Context): number {
  return Math.max(500, Math.floor(ctx.config.agentOfflineMs / 3));
}

/** Queues the watcher unless it is queued (an agent does at its start); it then keeps itself going while agents exist. */
export async function scheduleHostWatch(db: Kysely<Database>, ctx: Context, delayMs = 0): Promise<void> {
  await enqueueJob(db, ctx.clock, { kind: WATCH_JOB, runAt: ctx.clock.nowMs() + delayMs, dedupeKey: WATCH_JOB });
}

/**
 * An agent silent for longer than CUMULO_AGENT_OFFLINE_MS: its running nodes show `offline`, status
 * only (their disks, configs and machines stay; the agent's return brings them back, see below).
 */
const watch: JobHandler = {
  kind: WATCH_JOB,
  async run({ trx, job, ctx }: JobContext) {
    const now = Date.now();
    const updated = toTimestamp(ctx.clock.nowMs());
    for (const host of await listHosts(trx)) {
      if (hostIsLive(host, now, ctx.config.agentOfflineMs)) continue;
      const ids = await setHostNodesStatus(trx, host.name, { from: 'running', to: 'offline', updated });
      if (ids.length)
        ctx.log.warn({ host: host.name, nodes: ids, silentMs: now - host.heartbeatAt }, 'agent silent: its nodes are offline');
    }
    await releaseDedupeKey(trx, job.id);
    if (await hostsExist(trx)) await scheduleHostWatch(trx, ctx, watchEveryMs(ctx));
  },
};

/**
 * On an agent, after each report: its settled nodes shown `offline` whose machines run (the agent
 * had been silent, and adopted them at its start) are `running` again.
 */
export async function restoreHostNodes(ctx: Context, host: string): Promise<void> {
  const compute = ctx.compute;
  if (compute === null) return;
  const offline = await findSettledHostNodes(ctx.db, host, 'offline');
  const running: number[] = [];
  for (const id of offline) if ((await compute.state(machineKey(id))) === 'running') running.push(id);
  if (running.length === 0) return;
  const updated = toTimestamp(ctx.clock.nowMs());
  const ids = await setHostNodesStatus(ctx.db, host, { from: 'offline', to: 'running', updated, ids: running });
  if (ids.length) ctx.log.info({ host, nodes: ids }, 'agent back: the nodes whose machines run are running again');
}

export const hostLivenessJobs: readonly JobHandler[] = [watch];
