import path from 'node:path';
import { HostHeartbeat } from './compute/agents/host-heartbeat.ts';
import type { Config } from './config.ts';
import type { Context } from './context.ts';
import { COMPUTE_DIR } from './data-dir.ts';
import { inTransaction } from './db/transaction.ts';
import { restoreHostNodes, scheduleHostWatch } from './domain/nodes/compute/host-liveness.jobs.ts';

/** Why this configuration cannot run an agent, or null when it can. */
export function agentRefusal(config: Config, host: string | undefined): string | null {
  if (!host || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(host)) {
    return 'An agent needs --host NAME (letters, digits, ".", "_", "-"; at most 63), unique among the agents';
  }
  if (config.compute !== 'qemu') return 'An agent runs machines: set CUMULO_COMPUTE=qemu';
  if (!config.databaseUrl) {
    return "Agents on separate hosts share one database: set DATABASE_URL to a PostgreSQL database (SQLite is one host's file)";
  }
  return null;
}

/**
 * An agent's reports of its host (its first before it claims a job), each followed by bringing back
 * its nodes shown `offline` whose machines run, and by making sure the watcher of silent agents is
 * queued for the API's workers.
 */
export async function startAgentHeartbeat(ctx: Context, host: string): Promise<HostHeartbeat> {
  const compute = ctx.compute;
  if (compute === null) throw new Error('an agent runs without a compute driver');
  const heartbeat = new HostHeartbeat({
    db: ctx.db,
    driver: compute,
    computeDir: path.join(ctx.config.dataDir, COMPUTE_DIR),
    name: host,
    regions: ctx.config.agentRegions ?? null,
    memoryTotalMb: ctx.config.computeMemoryMb,
    intervalMs: ctx.config.agentHeartbeatMs,
    log: ctx.log,
    afterBeat: async () => {
      await restoreHostNodes(ctx, host);
      // Queued once (a dedupe key), and again should a reset or restore have removed it.
      await inTransaction(ctx.db, (trx) => scheduleHostWatch(trx, ctx));
    },
  });
  await heartbeat.start();
  return heartbeat;
}
