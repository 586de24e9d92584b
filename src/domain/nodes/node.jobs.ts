import { lockRows } from '../../db/row-locks.ts';
import type { JobContext } from '../../jobs/handler.ts';
import type { OperationHandler, WorkContext } from '../../jobs/operation.ts';
import type { TransitionKind } from '../../jobs/transitions.ts';
import { toTimestamp } from '../../time/timestamp.ts';
import { provisionFromBackup } from './backups/backup-copies.ts';
import { bootMachine, buildMachine, rebootMachine, stopMachine } from './compute/machine-work.ts';
import { markNodeDisksReady } from './disks/disk.repository.ts';
import { releaseNode } from './node.repository.ts';
import { NODE_OPS } from './node-operations.ts';

/** The node an operation's job is about, and the service time now. */
export function jobTarget(job: JobContext) {
  return {
    accountId: job.job.account_id ?? 0,
    nodeId: Number(job.payload.nodeId),
    now: toTimestamp(job.ctx.clock.nowMs()),
  };
}

/** Locks the node of an operation's job, so that the job and the API's writes to the node take turns. */
export function holdNode(job: JobContext): Promise<void> {
  return lockRows(job.trx, 'nodes', 'id', [Number(job.payload.nodeId)]);
}

/**
 * An operation that holds the node (`busy`, named after its transition) in an intermediate status
 * and moves it to `to` when done; a `configId` in the payload becomes the last booted config when
 * the node ends up running.
 */
export function nodeTransition(spec: {
  kind: string;
  transition: TransitionKind;
  from: string;
  to: (job: JobContext) => string;
  /** Where the node goes if the job fails for good. */
  failTo: string;
  finish?: (job: JobContext) => Promise<void>;
  work?: (job: WorkContext) => Promise<void>;
}): OperationHandler {
  const booted = (job: JobContext) => {
    const configId = job.payload.configId;
    return typeof configId === 'number' && spec.to(job) === 'running' ? { last_booted_config_id: configId } : {};
  };
  return {
    kind: spec.kind,
    transition: spec.transition,
    ...(spec.work && { work: spec.work }),
    async finish(job) {
      const { accountId, nodeId, now } = jobTarget(job);
      await spec.finish?.(job);
      await releaseNode(job.trx, accountId, nodeId, {
        kind: spec.transition,
        from: spec.from,
        to: spec.to(job),
        updated: now,
        values: booted(job),
      });
    },
    async fail(job) {
      const { accountId, nodeId, now } = jobTarget(job);
      await releaseNode(job.trx, accountId, nodeId, { kind: spec.transition, from: spec.from, to: spec.failTo, updated: now });
    },
  };
}

/** Provisioning ends with the node's disks written and the node running (or offline when created with booted: false). */
const provision = nodeTransition({
  kind: NODE_OPS.provision,
  transition: 'node_provision',
  from: 'provisioning',
  to: (job) => (job.payload.booted === false ? 'offline' : 'running'),
  failTo: 'offline',
  async finish(job) {
    const { accountId, nodeId, now } = jobTarget(job);
    await markNodeDisksReady(job.trx, accountId, nodeId, now);
  },
  work: (job) => (job.payload.plan ? provisionFromBackup(job) : buildMachine(job)),
});

const boot = nodeTransition({
  kind: NODE_OPS.boot,
  transition: 'node_boot',
  from: 'booting',
  to: () => 'running',
  failTo: 'offline',
  work: bootMachine,
});

const reboot = nodeTransition({
  kind: NODE_OPS.reboot,
  transition: 'node_reboot',
  from: 'rebooting',
  to: () => 'running',
  failTo: 'offline',
  work: rebootMachine,
});

const shutdown = nodeTransition({
  kind: NODE_OPS.shutdown,
  transition: 'node_shutdown',
  from: 'shutting_down',
  to: () => 'offline',
  failTo: 'running',
  work: stopMachine,
});

export const nodeOperations: readonly OperationHandler[] = [provision, boot, reboot, shutdown];
