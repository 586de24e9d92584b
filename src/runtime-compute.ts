import path from 'node:path';
import type { Logger } from 'pino';
import { AgentsDriver } from './compute/agents/agents-driver.ts';
import { COMPUTE_EVENT_JOB, type ComputeEventJobPayload } from './compute/compute-event-job.ts';
import type { ComputeDriver, ComputeEvent } from './compute/driver.ts';
import { QemuDriver } from './compute/qemu/driver.ts';
import { networkBackendFor } from './compute/qemu/network-for-config.ts';
import type { Config } from './config.ts';
import type { Context } from './context.ts';
import { COMPUTE_DIR, makePrivateDir } from './data-dir.ts';
import type { Db } from './db/database.ts';
import { enqueueJob } from './jobs/queue.ts';

/** How often a process whose nodes run on agents reads their reports again. */
const AGENT_REPORTS_REFRESH_MS = 1000;

/** The compute driver CUMULO_COMPUTE names; null while nodes are simulated. */
export function computeDriverFor(config: Config, log: Logger, db: Db): QemuDriver | AgentsDriver | null {
  if (config.compute === 'agents') {
    return new AgentsDriver({ db, offlineMs: config.agentOfflineMs, refreshMs: AGENT_REPORTS_REFRESH_MS, log });
  }
  if (config.compute !== 'qemu') return null;
  const dir = path.join(config.dataDir, COMPUTE_DIR);
  makePrivateDir(dir);
  return new QemuDriver({
    dir,
    network: networkBackendFor(config, log),
    memoryMb: config.computeMemoryMb,
    log,
    consoleLogBytes: config.consoleLogMb * 1024 * 1024,
  });
}

/**
 * Where the driver's events go: each a durable job, in its own transaction, for the worker to pick
 * up (an agent's: `host`, so that the agent that holds the machine handles it).
 */
export function enqueueComputeEvent(ctx: Context, host: string | null = null): (event: ComputeEvent) => void {
  return (event) => {
    const payload: ComputeEventJobPayload = { key: event.key, event: event.kind };
    ctx.db
      .transaction()
      .execute((trx) => enqueueJob(trx, ctx.clock, { kind: COMPUTE_EVENT_JOB, payload: { ...payload }, host }))
      .then(() => ctx.wakeWorker())
      .catch((err: unknown) => ctx.log.error({ err, event }, 'compute: an event could not be queued'));
  };
}

/** How nodes run, for the start banner: `QEMU under TCG (why), user networking` (bridge: `in namespace cumulo`). */
export function computeSummary(config: Config, driver: ComputeDriver | null): string | null {
  if (driver instanceof AgentsDriver) {
    return `on compute agents (${driver.hosts.length} reported; \`npx cumulo admin hosts\` lists them)`;
  }
  if (!(driver instanceof QemuDriver)) return null;
  const choice = driver.acceleratorChoice;
  const accel = choice ? ` under ${choice.accel.toUpperCase()} (${choice.reason})` : '';
  const where = config.nodeNetwork === 'bridge' ? ` in namespace ${config.nodeNetns}` : '';
  return `QEMU${accel}, ${config.nodeNetwork} networking${where}`;
}
