import { notifyJobs } from './domain/domains/notify.jobs.ts';
import { slaveJobs } from './domain/domains/slave-refresh.jobs.ts';
import { zoneJobs } from './domain/domains/zone-render.jobs.ts';
import { progressEvent } from './domain/events/event.service.ts';
import { firewallJobs } from './domain/firewalls/firewall-apply.jobs.ts';
import { imageJobs, imageOperations } from './domain/images/image.jobs.ts';
import { probeJobs } from './domain/managed/services/probe.jobs.ts';
import { backupJobs, backupOperations } from './domain/nodes/backups/backup.jobs.ts';
import { cloneOperation } from './domain/nodes/clones/clone.jobs.ts';
import { hostLivenessJobs } from './domain/nodes/compute/host-liveness.jobs.ts';
import { machineJobs } from './domain/nodes/compute/machine.jobs.ts';
import { operationHost } from './domain/nodes/compute/operation-host.ts';
import { diskOperations } from './domain/nodes/disks/disk.jobs.ts';
import { nodeChangeOperations } from './domain/nodes/lifecycle/node-change.jobs.ts';
import { holdNode, nodeOperations } from './domain/nodes/node.jobs.ts';
import { nodeSampleJobs } from './domain/nodes/stats/node-sampler.jobs.ts';
import { oauthJobs } from './domain/oauth/oauth.jobs.ts';
import { tokenJobs } from './domain/profile/token.jobs.ts';
import type { JobHandler } from './jobs/handler.ts';
import { type OperationHandler, operationJobs } from './jobs/operation.ts';

/**
 * Every job kind the worker knows, gathered from the resource groups. `realCompute`: nodes run on a
 * compute driver (ctx.compute), so node, disk and image capture operations do real work and end with it.
 */
export function jobHandlers(realCompute: boolean): JobHandler[] {
  const nodeOperationJobs = (operations: readonly OperationHandler[]) =>
    operationJobs(operations, { progress: progressEvent, hold: holdNode, realWork: realCompute, hostOf: operationHost });
  return [
    ...tokenJobs,
    ...oauthJobs,
    ...operationJobs(imageOperations, { progress: progressEvent, realWork: realCompute, hostOf: operationHost }),
    ...imageJobs,
    ...nodeOperationJobs(nodeOperations),
    ...nodeOperationJobs(diskOperations),
    ...nodeOperationJobs(backupOperations),
    ...nodeOperationJobs([cloneOperation]),
    ...nodeOperationJobs(nodeChangeOperations),
    ...backupJobs,
    ...zoneJobs,
    ...slaveJobs,
    ...notifyJobs,
    ...probeJobs,
    ...machineJobs,
    ...nodeSampleJobs,
    ...hostLivenessJobs,
    ...firewallJobs,
  ];
}
